// Per-target path rewrite and include/exclude lists: the same folder can live at different paths on two
// media servers, so each target turns the relay's path into its own form before scanning.
import { isInside, trimTrailingSeparator } from '../paths/folder.js';
import { mapPath, type PathMappings } from '../paths/mapping.js';
import type { ScanContext, ScanOutcome, Target } from '../scan.js';

export type { PathMappings };

export interface RewriteOptions {
  mappings?: PathMappings;
  /** When non-empty, only folders under one of these prefixes reach the target. */
  include?: string[];
  /** Folders under any of these prefixes never reach the target. */
  exclude?: string[];
}

/**
 * The target's form of a folder or file: SERVER_PATH_MAPPINGS' own mechanism (longest form at a path
 * boundary, Windows forms case-insensitive, the server's separator for the rest), without a trailing
 * separator, since targets are given folders.
 */
export function rewritePath(path: string, mappings: PathMappings = {}): string {
  return trimTrailingSeparator(mapPath(path, mappings).path);
}

/** Why a folder must not reach the target, or undefined when it may. Both its forms are checked. */
export function exclusionOf(forms: string[], include: string[] = [], exclude: string[] = []): string | undefined {
  const hit = exclude.find((prefix) => prefix && forms.some((f) => isInside(f, prefix)));
  if (hit) return `excluded by EXCLUDE '${hit}'`;
  const wanted = include.filter(Boolean);
  if (wanted.length > 0 && !wanted.some((prefix) => forms.some((f) => isInside(f, prefix)))) {
    return `excluded by INCLUDE (not under ${wanted.map((p) => `'${p}'`).join(', ')})`;
  }
  return undefined;
}

/** The target as seen through its own rewrite and include/exclude lists. */
export function withRewrite(target: Target, opts: RewriteOptions): Target {
  const mappings = opts.mappings ?? {};
  return {
    name: target.name,
    kind: target.kind,
    pauseMs: target.pauseMs,
    concurrency: target.concurrency,
    follower: target.follower,
    ...(target.sectionsOf ? { sectionsOf: (folder: string) => target.sectionsOf!(rewritePath(folder, mappings)) } : {}),
    async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
      const rewritten = rewritePath(folder, mappings);
      const excluded = exclusionOf([folder, rewritten], opts.include, opts.exclude);
      if (excluded) return { status: 'unmatched', detail: excluded };
      const file = context.file === undefined ? undefined : rewritePath(context.file, mappings);
      return target.scan(rewritten, { ...context, ...(file === undefined ? {} : { file }) });
    },
    available: () => target.available(),
  };
}
