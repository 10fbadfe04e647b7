// What a Jellyfin or Emby server can say about a delivered file once its scan was sent, as three questions
// asked over HTTP: the paths of the items a LibraryChanged named (GET /Items?Ids=…&Fields=Path, batched), whether
// the refresh of a library is still running (Jellyfin's RefreshStatus in /Library/VirtualFolders), and whether
// the refreshed folder now holds the file (its children listed once, paged; never the whole library). The words a
// follow-up ends with are in mediabrowser/verdict.ts; when to ask is the follower's (mediabrowser/follower.ts).
import { MEDIABROWSER_ITEMS_PAGE, MEDIABROWSER_LIBRARIES } from '../../http/answer-caps.js';
import type { ApiCaller } from '../../http/api-call.js';
import { lookupCandidates } from '../../paths/sidecar.js';
import { fileItemsQuery } from './items.js';
import type { Located } from './locate.js';

/** Ids per GET /Items?Ids=… request: 32 hex digits each keep the URL under 4 KB with the other parameters. */
export const IDS_PER_REQUEST = 50;
/** The newest items of a library looked at for a folder with no item of its own (a movie's), and pages of them. */
export const NEWEST_PAGE = 50;
export const NEWEST_PAGES = 4;
/** Files per page while listing the refreshed folder. */
export const FOLDER_PAGE = 500;

/** The query of one GET /Items?Ids=… request (the SDK's getItems names). */
export function itemPathsQuery(ids: string[]): Record<string, string> {
  return { Ids: ids.join(','), Fields: 'Path' };
}

/** One page of a library's files, newest first: for a folder the server keeps no item of (jellyfin#16172). */
export function newestFilesQuery(parentId: string, start: number, limit: number): Record<string, string> {
  return { ParentId: parentId, Recursive: 'true', Filters: 'IsNotFolder', Fields: 'Path', SortBy: 'DateCreated', SortOrder: 'Descending', StartIndex: String(start), Limit: String(limit) };
}

/** Id → Path of the items a LibraryChanged named; ids the server no longer has are simply absent. */
export async function pathsOfItems(api: ApiCaller, ids: string[]): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  for (let i = 0; i < ids.length; i += IDS_PER_REQUEST) {
    const page = await api.json<{ Items?: { Id?: unknown; Path?: unknown }[] }>('GET', '/Items', { cap: MEDIABROWSER_ITEMS_PAGE, query: itemPathsQuery(ids.slice(i, i + IDS_PER_REQUEST)) });
    for (const item of Array.isArray(page?.Items) ? page.Items : []) {
      if (typeof item.Id === 'string' && typeof item.Path === 'string') paths.set(item.Id, item.Path);
    }
  }
  return paths;
}

/** A deleted folder's items, looked up once the refresh is over: the path of one still there, else undefined. */
export async function stillListed(api: ApiCaller, ids: string[]): Promise<string | undefined> {
  return [...(await pathsOfItems(api, ids)).values()][0];
}

/** Is an item's path the file (or, for a sidecar, the video beside it)? */
export function holdsFile(itemPath: string, file: string): boolean {
  return lookupCandidates(file).includes(itemPath);
}

export type RefreshState = 'Active' | 'Queued' | 'Idle';

/**
 * Each library's refresh state, by id, from Jellyfin's GET /Library/VirtualFolders (Emby's /Library/VirtualFolders/
 * Query): "Active" while one of its
 * folders is being validated, "Queued" while its own item waits in the refresh queue, else "Idle"
 * (jellyfin@c3ed140 Emby.Server.Implementations/Library/LibraryManager.cs L1597-1601). Undefined when the answer
 * has no RefreshStatus: then only time says when to look.
 */
export function refreshStates(body: unknown): Map<string, RefreshState> | undefined {
  // Jellyfin answers the list; Emby's /Library/VirtualFolders/Query a QueryResult of the same VirtualFolderInfo.
  const folders = Array.isArray(body) ? body : (body as { Items?: unknown } | undefined)?.Items;
  if (!Array.isArray(folders)) return undefined;
  const states = new Map<string, RefreshState>();
  for (const f of folders as { ItemId?: unknown; RefreshStatus?: unknown }[]) {
    if (typeof f?.ItemId !== 'string' || typeof f.RefreshStatus !== 'string') continue;
    states.set(f.ItemId, f.RefreshStatus === 'Active' || f.RefreshStatus === 'Queued' ? f.RefreshStatus : 'Idle');
  }
  return states.size ? states : undefined;
}

/** The server's libraries' refresh states now; undefined when its list carries none, or it did not answer. */
export async function readRefreshStates(api: ApiCaller, librariesPath: string): Promise<Map<string, RefreshState> | undefined> {
  try {
    return refreshStates(await api.json('GET', librariesPath, { cap: MEDIABROWSER_LIBRARIES }));
  } catch {
    return undefined; // the caller's own requests say whether the server answers
  }
}

/** What one listing of the refreshed folder says of a file. */
export type Listed =
  | { state: 'found'; where: string }
  /** Listed in full and absent. */
  | { state: 'absent'; where: string }
  /** Nothing that could be listed without walking the whole library, or the server gave nothing usable. */
  | { state: 'unknown'; why: string };

/**
 * Lists, once, the deepest folder item holding the file's folder (re-located after the refresh, so a series the
 * refresh created is listed itself): every file below it, paged. A folder whose nearest item is the library
 * itself (a movie's folder is no item) is looked for among the library's newest files only.
 */
export async function listFolder(api: ApiCaller, located: Located | undefined, file: string): Promise<Listed> {
  if (!located) return { state: 'unknown', why: 'no library of the server holds the folder any more' };
  const wanted = lookupCandidates(file);
  if (!located.isLibraryRoot) {
    const where = `the files under '${located.item.path}'`;
    for (let start = 0; ; start += FOLDER_PAGE) {
      const body = await api.json<{ Items?: { Path?: unknown }[]; TotalRecordCount?: unknown }>('GET', '/Items', { cap: MEDIABROWSER_ITEMS_PAGE, query: fileItemsQuery(located.item.id, start, FOLDER_PAGE) });
      const items = Array.isArray(body?.Items) ? body.Items : [];
      if (items.some((i) => typeof i.Path === 'string' && wanted.includes(i.Path))) return { state: 'found', where };
      // Items without their Path (a proxy or server that drops Fields) prove nothing either way.
      if (items.length && items.every((i) => typeof i.Path !== 'string')) return { state: 'unknown', why: 'the server listed items without their Path' };
      const total = typeof body?.TotalRecordCount === 'number' ? body.TotalRecordCount : start + items.length;
      if (items.length < FOLDER_PAGE || start + items.length >= total) return { state: 'absent', where };
    }
  }
  let seen = 0;
  for (let page = 0; page < NEWEST_PAGES; page++) {
    const body = await api.json<{ Items?: { Path?: unknown }[] }>('GET', '/Items', { cap: MEDIABROWSER_ITEMS_PAGE, query: newestFilesQuery(located.library.id, page * NEWEST_PAGE, NEWEST_PAGE) });
    const items = Array.isArray(body?.Items) ? body.Items : [];
    if (items.some((i) => typeof i.Path === 'string' && wanted.includes(i.Path))) return { state: 'found', where: `the newest items of library '${located.library.name}'` };
    if (items.length && items.every((i) => typeof i.Path !== 'string')) return { state: 'unknown', why: 'the server listed items without their Path' };
    seen += items.length;
    if (items.length < NEWEST_PAGE) break;
  }
  return { state: 'unknown', why: `the folder has no item of its own (a movie's folder is none, jellyfin/jellyfin#16172) and the file is not among the ${seen} newest items of library '${located.library.name}'; the whole library is not listed for one file` };
}
