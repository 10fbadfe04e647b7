// What a person can do to a folder (Scan now, Retry, Drop), for the dashboard's forms and the JSON API alike.
import type { Folder } from '../scan.js';
import type { ActionResult } from './schemas.js';
import type { AppDeps } from './deps.js';

/** The three things a person can do to a folder; the dashboard's forms and the API both come here. */
export function steer(deps: AppDeps, who: string) {
  const after = (folder: string, done: string): ActionResult => {
    deps.logger.info({ folder, by: who }, `${done} '${folder}' (asked through ${who}).`);
    deps.processor?.wake();
    return { ok: true, folder, done };
  };
  const missing = (folder: string): ActionResult => ({ ok: false, folder, error: `'${folder}' is not in the queue` });
  /**
   * Maps the path as received again with the current SERVER_PATH_MAPPINGS. A fixed mapping thus reaches the
   * folder it names now. Undefined when the folder stays the same, when the new one is in no library (a queued
   * folder is not given up for that), or when the path was not kept (rows queued before it was).
   */
  const remapped = async (received: string | undefined, folder: string, kind: 'file' | 'folder' | 'auto') => {
    if (!received) return undefined;
    const [a] = await deps.intake.resolve([{ path: received, source: 'api', event: 'Retry', kind }]);
    return a.folder !== undefined && a.ignoredBy === undefined && !a.unmatched && a.folder !== folder ? received : undefined;
  };
  /** Queues the received path again under its new folder and scans it now; the old row ends as moved. */
  const requeue = async (received: string, kind: 'file' | 'folder' | 'auto', old?: Folder, previous?: string): Promise<ActionResult> => {
    const [a] = await deps.intake.submit([{ path: received, source: 'api', event: 'Retry', kind }], who);
    if (old) deps.queue.finish(old, 'dropped', `Mapped again to '${a.folder}' with the current SERVER_PATH_MAPPINGS.`);
    if (a.folder === undefined || a.unmatched) return after(a.folder ?? received, 'Mapped again, still in no library');
    deps.queue.scanNow(a.folder);
    return after(a.folder, a.folder === (old?.folder ?? previous) ? 'Queued again' : `Mapped '${received}' again to`);
  };
  return {
    /** Skip the rest of the delay and any retry wait (after mapping the received path again). */
    async scanNow(folder: string): Promise<ActionResult> {
      const row = deps.queue.get(folder);
      if (!row) return missing(folder);
      const moved = await remapped(row.received, folder, row.fileHint ? 'file' : 'folder');
      if (moved) return requeue(moved, row.fileHint ? 'file' : 'folder', row);
      return deps.queue.scanNow(folder) ? after(folder, 'Scanning now') : missing(folder);
    },
    /** A queued folder is tried again at once; a finished one (unmatched, exhausted, dropped) is queued again. */
    async retry(folder: string): Promise<ActionResult> {
      const row = deps.queue.get(folder);
      if (row) {
        const moved = await remapped(row.received, folder, row.fileHint ? 'file' : 'folder');
        if (moved) return requeue(moved, row.fileHint ? 'file' : 'folder', row);
        if (deps.queue.scanNow(folder)) return after(folder, 'Retrying now');
      }
      const past = deps.queue.history(10_000).find((h) => h.folder === folder);
      if (!past) return { ok: false, folder, error: `'${folder}' is neither queued nor in the history` };
      if (past.received) return requeue(past.received, 'auto', undefined, folder);
      const res = deps.queue.enqueue({ folder, priority: 0, source: 'api', event: 'Retry', deleted: false });
      deps.activity?.emit('queued', { folder, merged: res.merged, source: 'api', event: 'Retry' });
      deps.queue.scanNow(folder);
      return after(folder, 'Queued again');
    },
    async drop(folder: string): Promise<ActionResult> {
      if (!deps.queue.drop(folder, who)) return missing(folder);
      deps.activity?.emit('finished', { folder, outcome: 'dropped', detail: `dropped by ${who}` });
      return after(folder, 'Dropped');
    },
  };
}
