// Files that hold library paths or secrets (the queue and its WAL/SHM, the log, token files) belong to the
// service's user alone: created 0600, and looser existing ones tightened at start (docs/security.md).
import { chmodSync, closeSync, openSync, statSync } from 'node:fs';

export const PRIVATE_MODE = 0o600;

/** Creates `path` empty with mode 0600 when it does not exist yet; an existing file is left as it is. */
export function createPrivate(path: string): void {
  try {
    closeSync(openSync(path, 'wx', PRIVATE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/**
 * The mode a file should be tightened to, or undefined when it is fine. 0600 and 0640 are fine (0640 lets a
 * group of your choosing read the log, docs/security.md); anything readable by others, or writable or
 * executable by the group, becomes 0600, or 0640 when only the group bits were too wide.
 */
export function tightenedMode(mode: number): number | undefined {
  const perms = mode & 0o777;
  if ((perms & ~0o640) === 0) return undefined;
  return perms & 0o007 ? PRIVATE_MODE : perms & 0o640;
}

export interface Tightened {
  path: string;
  from: number;
  to: number;
}

/** Tightens each existing file of `paths`; missing files are skipped, a file we may not chmod is reported. */
export function tightenPrivate(paths: string[]): { tightened: Tightened[]; failed: { path: string; error: string }[] } {
  const tightened: Tightened[] = [];
  const failed: { path: string; error: string }[] = [];
  for (const path of new Set(paths)) {
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch {
      continue;
    }
    const to = tightenedMode(mode);
    if (to === undefined) continue;
    try {
      chmodSync(path, to);
      tightened.push({ path, from: mode & 0o777, to });
    } catch (err) {
      failed.push({ path, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
    }
  }
  return { tightened, failed };
}

export const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;
