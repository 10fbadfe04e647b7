// The list of targets a config describes: the first Plex from PLEX_* keys, then every TARGETS entry.
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { PlexTarget } from './plex.js';
import type { Target } from './target.js';

export interface BuildDeps {
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
}

export function buildTargets(config: Config, deps: BuildDeps): Target[] {
  const targets: Target[] = [];
  if (config.PLEX_ENABLED && config.PLEX_TOKEN) {
    targets.push(
      new PlexTarget({
        name: 'plex',
        url: config.PLEX_LOCAL_URL,
        token: config.PLEX_TOKEN,
        pauseMs: config.PLEX_SCAN_PAUSE * 1000,
        clock: deps.clock,
        fetch: deps.fetch,
      }),
    );
  }
  return targets;
}
