// A kind's capabilities as the table would configure them, for tests that build a target by its constructor.
import type { Target } from '../../src/scan.js';
import { configured } from '../../src/targets/build.js';
import type { Capabilities } from '../../src/targets/kind.js';
import type { PathMappings } from '../../src/targets/rewrite.js';

export interface TableKeys {
  name: string;
  pauseMs?: number;
  concurrency?: number;
  /** MAX_OUTSTANDING: the cap on scans the server accepted and has not ended. */
  maxOutstanding?: number;
  mappings?: PathMappings;
  include?: string[];
  exclude?: string[];
  refreshItems?: boolean;
}

export function named(target: Capabilities, keys: TableKeys): Target {
  return configured(
    {
      NAME: keys.name,
      TYPE: target.kind,
      ENABLED: true,
      PATH_MAPPINGS: keys.mappings ?? {},
      INCLUDE: keys.include ?? [],
      EXCLUDE: keys.exclude ?? [],
      SCAN_PAUSE: (keys.pauseMs ?? 0) / 1000,
      SCAN_CONCURRENCY: keys.concurrency,
      MAX_OUTSTANDING: keys.maxOutstanding,
      REFRESH_ITEMS: keys.refreshItems,
    },
    target,
  );
}
