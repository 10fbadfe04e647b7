// What an app has: every media file it lists, read through the app's own client (src/arr/client.ts, the key in
// X-Api-Key). Sonarr (and Whisparr v2) list each series, then its episode files; Radarr (and Whisparr v3) carry each
// movie's file in the movie list; Lidarr and Readarr list each artist or author, then its track or book files. Each
// request is an operation of the app's own OpenAPI document (test/reconcile/app-files.test.ts checks them).
import type { ArrApp } from '../arr/apps.js';
import type { ArrClient } from '../arr/client.js';

/** How one app's files are read: the item list, then (unless the list carries them) one file list per item. */
export interface FileReading {
  items: '/series' | '/movie' | '/artist' | '/author';
  /** The file list of one item and its query name; absent: each item's `movieFile` is its file. */
  files?: { path: '/episodefile' | '/trackfile' | '/bookfile'; by: 'seriesId' | 'artistId' | 'authorId' };
}

export const FILE_READING: Record<ArrApp['name'], FileReading> = {
  sonarr: { items: '/series', files: { path: '/episodefile', by: 'seriesId' } },
  radarr: { items: '/movie' },
  lidarr: { items: '/artist', files: { path: '/trackfile', by: 'artistId' } },
  readarr: { items: '/author', files: { path: '/bookfile', by: 'authorId' } },
};

/** Every request the reading sends, by method, path template (after the API base) and query names. */
export function fileRequests(arr: ArrApp): { method: 'GET'; template: string; query: string[] }[] {
  const r = FILE_READING[arr.name];
  return [{ method: 'GET', template: r.items, query: [] }, ...(r.files ? [{ method: 'GET' as const, template: r.files.path, query: [r.files.by] }] : [])];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const pathOf = (v: unknown): string | undefined => (isObject(v) && typeof v.path === 'string' && v.path !== '' ? v.path : undefined);

/**
 * The app's files, as it names them. `progress` is told after each item's files are read (items read, items in
 * all). Rejects with the client's error when the app does not answer.
 */
export async function appFiles(client: ArrClient, arr: ArrApp, progress?: (done: number, total: number) => void): Promise<string[]> {
  const reading = FILE_READING[arr.name];
  // Of each item its id and its file: a 20,000-movie list is some 100 MB, the rest of each entry never held.
  const items = await client.list(reading.items, undefined, (v) => {
    const item = isObject(v) ? { id: typeof v.id === 'number' ? v.id : undefined, file: pathOf(v.movieFile) } : undefined;
    return item && (item.id !== undefined || item.file) ? item : undefined;
  });
  const files: string[] = [];
  if (!reading.files) {
    for (const item of items) if (item.file) files.push(item.file);
    progress?.(items.length, items.length);
    return files;
  }
  const { path, by } = reading.files;
  let done = 0;
  for (const item of items) {
    if (typeof item.id === 'number') {
      for (const f of await client.list(path, { [by]: String(item.id) })) {
        const file = pathOf(f);
        if (file) files.push(file);
      }
    }
    progress?.(++done, items.length);
  }
  return files;
}
