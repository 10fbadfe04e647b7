// Per-target path rewrite and include/exclude lists: the same folder can live at different paths on two media
// servers, so each target turns the relay's path into its own form (TARGETS[].PATH_MAPPINGS) before it is asked.
import { isInside, trimTrailingSeparator } from '../paths/folder.js';
import { mapPath, type PathMappings } from '../paths/mapping.js';
import type { TargetPath } from '../scan.js';

export type { PathMappings };

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

export interface RewriteOptions {
  mappings?: PathMappings;
  /** When non-empty, only folders under one of these prefixes reach the target. */
  include?: string[];
  /** Folders under any of these prefixes never reach the target. */
  exclude?: string[];
}

/** A target's `pathOf`: the folder in its form, the pair that rewrote it, and whether INCLUDE/EXCLUDE let it through. */
export function targetPath(folder: string, opts: RewriteOptions): TargetPath {
  const mapped = mapPath(folder, opts.mappings ?? {});
  const path = trimTrailingSeparator(mapped.path);
  const excluded = exclusionOf([folder, path], opts.include, opts.exclude);
  return { path, ...(mapped.match ? { rewrite: mapped.match } : {}), ...(excluded ? { excluded } : {}) };
}
