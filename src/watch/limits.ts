// The kernel's inotify watch limit: read at start, and the sysctl to raise it said plainly when a tree needs more.
import { readFileSync } from 'node:fs';
import type { Logger } from '../log/logger.js';

export const MAX_USER_WATCHES = '/proc/sys/fs/inotify/max_user_watches';

/** The limit, or undefined where the file does not exist (not Linux) or cannot be read. */
export function readMaxUserWatches(file = MAX_USER_WATCHES): number | undefined {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** A value worth setting: room for twice the folders (other programs watch too), at least 524288. */
export function suggestedWatches(folders: number): number {
  return Math.max(524_288, 2 ** Math.ceil(Math.log2(Math.max(1, folders * 2))));
}

export function raiseAdvice(folders: number): string {
  const n = suggestedWatches(folders);
  return (
    `raise it with: sudo sysctl -w fs.inotify.max_user_watches=${n} ` +
    `(and keep it across reboots: echo fs.inotify.max_user_watches=${n} | sudo tee /etc/sysctl.d/60-scanrelay.conf), ` +
    'or use "BACKEND": "poll" for this path'
  );
}

/**
 * Logs the limit against what the tree needs: one watch per folder, shared with every other program of the
 * same user (Plex, Syncthing…), so a tree using more than 90% of it gets a warning before watches start failing.
 */
export function checkWatchLimit(folders: number, limit: number | undefined, root: string, logger: Logger): void {
  if (limit === undefined) {
    logger.info({ root, folders }, `Watching ${folders} folder(s) under '${root}'; the inotify limit (${MAX_USER_WATCHES}) could not be read.`);
    return;
  }
  if (folders > limit * 0.9) {
    logger.warn({ root, folders, limit }, `'${root}' has ${folders} folder(s) to watch but the kernel allows ${limit} inotify watches per user: ${raiseAdvice(folders)}.`);
  } else {
    logger.info({ root, folders, limit }, `Watching ${folders} folder(s) under '${root}' with inotify (limit ${limit}).`);
  }
}
