// Fills the id -> path cache with a whole drive (files.list of everything not trashed), for `build-caches`:
// afterwards the monitor resolves paths without fetching parents one by one.
import type { DriveApi, DriveFile } from './api.js';
import { FOLDER_MIME } from './api.js';
import type { DriveCache } from './cache.js';
import type { WatchTarget } from './drives.js';

export interface WalkSummary {
  items: number;
  folders: number;
  /** Parents outside the listing (the root, folders shared in) fetched with files.get. */
  fetched: number;
  /** Items whose path could not be built (an ancestor not visible to this account). */
  unresolved: number;
  ms: number;
}

export async function walkDrive(
  api: DriveApi,
  cache: DriveCache,
  target: WatchTarget,
  onProgress: (listed: number, more: boolean) => void = () => undefined,
  now: () => number = Date.now,
): Promise<WalkSummary> {
  const started = now();
  const byId = new Map<string, DriveFile>();
  let pageToken: string | undefined;
  do {
    const page = await api.listFiles({ driveId: target.driveId, pageToken });
    for (const f of page.files) byId.set(f.id, f);
    pageToken = page.nextPageToken;
    onProgress(byId.size, pageToken !== undefined);
  } while (pageToken);

  const outside = new Set<string>();
  for (const f of byId.values()) {
    const p = f.parents?.[0];
    if (p && !byId.has(p) && !cache.get(p)) outside.add(p);
  }
  const fetched = await cache.ensureKnown(outside, (id) => api.getFile(id));

  // Parents first, so every path is built from a stored parent path (iterative: trees can be deep).
  const ordered: DriveFile[] = [];
  const placed = new Set<string>();
  for (const start of byId.values()) {
    const chain: DriveFile[] = [];
    for (let f: DriveFile | undefined = start; f && !placed.has(f.id); f = byId.get(f.parents?.[0] ?? '')) {
      placed.add(f.id);
      chain.push(f);
    }
    for (let i = chain.length - 1; i >= 0; i--) ordered.push(chain[i]);
  }
  cache.putAll(ordered);

  let folders = 0;
  let unresolved = 0;
  for (const f of ordered) {
    if (f.mimeType === FOLDER_MIME) folders++;
    if (cache.get(f.id)?.path == null) unresolved++;
  }
  return { items: ordered.length, folders, fetched, unresolved, ms: now() - started };
}
