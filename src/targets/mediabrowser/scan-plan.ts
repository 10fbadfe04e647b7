// What a Jellyfin or Emby target sends for the folders due together, by SCAN_METHOD, besides the Targeted Scans
// plugin's files (mediabrowser/plugin-plan.ts). Pure: the folders come already located (mediabrowser/locate.ts),
// the calls go out through whatever HTTP caller the target has.
//  - item (and auto): POST /Items/{id}/Refresh of the deepest folder item holding each folder, once per distinct
//    item; on a folder the server validates its children recursively (new files become items, missing ones go)
//    at once, with no monitor delay and no merge onto the library root.
//  - folders whose nearest item is the library itself share ONE refresh of the library's item. The server's
//    refresh queue is a priority queue, not first in first out (the newest equal entry runs next), so that
//    refresh is held until the cheap refreshes sent before it have run (mediabrowser/scan.ts), never sent among them.
//  - library: one refresh of each library's item. media-updated: POST /Library/Media/Updated, the monitor's way.
// docs/targets.md ("Jellyfin and Emby: how a folder reaches the library") gives the server code behind each of these.
import type { FolderItem, Located } from './locate.js';

export const SCAN_METHODS = ['auto', 'item', 'library', 'media-updated'] as const;
export type ScanMethod = (typeof SCAN_METHODS)[number];
export type ServerKind = 'jellyfin' | 'emby';

/** SCAN_METHOD's default per kind: see docs/targets.md for Emby's evidence. */
export function defaultScanMethod(kind: ServerKind): ScanMethod {
  return kind === 'jellyfin' ? 'auto' : 'media-updated';
}

export interface DueFolder {
  /** The folder as the server sees it. */
  path: string;
  deleted: boolean;
  /** The folder itself is gone (a deleted series), not only a file in it. */
  gone: boolean;
  /** Where it sits among the server's items; undefined when no library holds it. */
  located?: Located;
}

export type CallKind = 'refresh-item' | 'refresh-library' | 'media-updated';

export interface PlannedCall {
  kind: CallKind;
  method: 'POST';
  /** Path template and its values, so the conformance test and the log can name the operation. */
  template: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** The due folders this call covers. */
  folders: string[];
  item?: FolderItem;
}

export interface ScanPlan {
  calls: PlannedCall[];
  /** Folders in no library of the server. */
  unmatched: string[];
  /** Lines for the log: why a library is walked. */
  notes: string[];
}

/** What the web client's "Scan for new and updated files" sends; the server's defaults (None) add no metadata. */
export function refreshQuery(kind: ServerKind): Record<string, string> {
  if (kind === 'emby') {
    // Emby's reference documents these PascalCase names and a Recursive flag; Jellyfin binds no Recursive.
    return { Recursive: 'true', MetadataRefreshMode: 'Default', ImageRefreshMode: 'Default', ReplaceAllMetadata: 'false', ReplaceAllImages: 'false' };
  }
  return { metadataRefreshMode: 'Default', imageRefreshMode: 'Default', replaceAllMetadata: 'false', replaceAllImages: 'false' };
}

export function planScans(input: { kind: ServerKind; method: ScanMethod; folders: DueFolder[] }): ScanPlan {
  const { kind, method, folders } = input;
  const unmatched = folders.filter((f) => !f.located).map((f) => f.path);
  const held = folders.filter((f) => f.located);
  if (method === 'media-updated') {
    if (held.length === 0) return { calls: [], unmatched, notes: [] };
    const body = { Updates: held.map((f) => ({ Path: f.path, UpdateType: f.deleted ? 'Deleted' : 'Modified' })) };
    const call: PlannedCall = { kind: 'media-updated', method: 'POST', template: '/Library/Media/Updated', path: '/Library/Media/Updated', body, folders: held.map((f) => f.path) };
    return { calls: [call], unmatched, notes: [] };
  }
  if (method === 'library') {
    const byLibrary = new Map<string, { item: FolderItem; folders: string[] }>();
    for (const f of held) add(byLibrary, f.located!.chain[0], f.path);
    return { calls: [...byLibrary.values()].map((t) => refresh(kind, 'refresh-library', t.item, t.folders)), unmatched, notes: [] };
  }
  // item (and auto without the plugin): the deepest known item; a folder that is itself gone, its parent item.
  const items = new Map<string, { item: FolderItem; folders: string[] }>();
  const roots = new Map<string, { item: FolderItem; folders: string[]; name: string }>();
  for (const f of held) {
    const { chain } = f.located!;
    let at = chain.length - 1;
    if (f.gone && chain[at].path === f.path && at > 0) at -= 1;
    if (at === 0) {
      const entry = roots.get(chain[0].id) ?? { item: chain[0], folders: [], name: f.located!.library.name };
      entry.folders.push(f.path);
      roots.set(chain[0].id, entry);
    } else {
      add(items, chain[at], f.path);
    }
  }
  // A refresh of a series covers its seasons: drop items inside another planned item. Not inside a planned root:
  // the cheap refreshes go first and the walk after they ran, so an episode shows in seconds.
  const covering = [...items.values()];
  const kept = [...items.values()].filter((t) => !covering.some((o) => o !== t && isBelow(t.item.path, o.item.path)));
  for (const t of items.values()) {
    if (kept.includes(t)) continue;
    const by = covering.find((o) => o !== t && isBelow(t.item.path, o.item.path))!;
    by.folders.push(...t.folders);
  }
  const calls = kept.sort((a, b) => depthOf(b.item.path) - depthOf(a.item.path)).map((t) => refresh(kind, 'refresh-item', t.item, t.folders));
  const notes: string[] = [];
  for (const r of roots.values()) {
    calls.push(refresh(kind, 'refresh-library', r.item, r.folders));
    notes.push(libraryWalkNote(kind, r.name, r.folders));
  }
  return { calls, unmatched, notes };
}

/** For the path doctor (explain): which item a folder would refresh, and what that costs. */
export function explainFolder(kind: ServerKind, folder: DueFolder): string {
  const located = folder.located;
  if (!located) return `in no library of this ${kind === 'jellyfin' ? 'Jellyfin' : 'Emby'} server`;
  const { chain } = located;
  let at = chain.length - 1;
  if (folder.gone && chain[at].path === folder.path && at > 0) at -= 1;
  const item = chain[at];
  if (at === 0) return `would refresh library '${located.library.name}' as a whole (${item.id}): no item below the library holds this folder, so the whole library is walked`;
  return `would refresh ${item.type} '${item.path}' (${item.id}): its validate walks only that folder`;
}

/** The log line of a library-root refresh: what it costs, and why nothing cheaper would do. */
export function libraryWalkNote(kind: ServerKind, library: string, folders: string[], locations?: string[]): string {
  const server = kind === 'jellyfin' ? 'Jellyfin' : 'Emby';
  const shown = folders.slice(0, 3).join(', ') + (folders.length > 3 ? ` and ${folders.length - 3} more` : '');
  const what = locations?.length ? `its location${locations.length === 1 ? '' : 's'} ${locations.map((l) => `'${l}'`).join(', ')}` : 'as a whole';
  return (
    `refreshing library '${library}' ${what}, once for ${folders.length} folder${folders.length === 1 ? '' : 's'} (${shown}): ` +
    `${server} keeps no item for ${folders.length === 1 ? 'it' : 'them'} nor for any folder between ${folders.length === 1 ? 'it' : 'them'} and the library (a new series, or a movie: ` +
    `a movie's folder is no item, jellyfin/jellyfin#16172; #16228 would find existing movies). This walks ${locations?.length ? 'that location' : 'the whole library'}; ` +
    `the Targeted Scans plugin (POST /Library/ScanPath) adds such folders without a walk`
  );
}

/**
 * What a POST /Library/ScanPath answer means. 'absent': the route is not there (a 404 with no plugin body), so
 * the plugin is not installed. 'done': Created, Refreshed, Removed, and Omniscan's Existing for a path that is
 * there (drondeseries/omniscan@2b50650 jellyfin-plugin/Services/TargetedScanService.cs L76-83: the item exists and
 * was refreshed ValidationOnly; gone from disk, it says the item is still there, which Omniscan never deletes:
 * 'fallback'). Omniscan's Error (L89-93, L112-115) is a failure like Failed. Jellyfin's plugin answers Removed (the item of
 * a path gone from disk deleted) as HTTP 500 with Status "Failed" (targeted-scans@0b5cabe ScanPathController.cs
 * L92-96), so for a path known to be `gone` that answer is done, and so is PathNotFound (no item was there).
 * 'fallback': the plugin could not make an item of a path that is there (PathNotFound: a mount that lags;
 * ParentNotFound; Failed, which Emby's plugin answers with a 200 and Jellyfin's with a 500): the item refresh takes
 * the folder, and its own failure is retried as any other. 'retry': any other failure.
 */
export function pluginAnswer(status: number, body: unknown, gone = false): 'done' | 'fallback' | 'absent' | 'retry' {
  const said = typeof (body as { Status?: unknown })?.Status === 'string' ? String((body as { Status: string }).Status) : undefined;
  if (said === 'Created' || said === 'Refreshed' || said === 'Removed' || (said === 'Existing' && !gone)) return 'done';
  if (gone && ((status === 500 && said === 'Failed') || said === 'PathNotFound')) return 'done';
  if (said === 'PathNotFound' || said === 'ParentNotFound' || said === 'Failed' || said === 'Error' || said === 'Existing') return 'fallback';
  if (status === 404 || status === 405) return said === undefined ? 'absent' : 'fallback';
  if (said !== undefined) return 'retry';
  if (status >= 200 && status < 300) return 'done';
  return 'retry';
}

function refresh(kind: ServerKind, callKind: CallKind, item: FolderItem, folders: string[]): PlannedCall {
  return {
    kind: callKind,
    method: 'POST',
    template: '/Items/{itemId}/Refresh',
    path: `/Items/${encodeURIComponent(item.id)}/Refresh`,
    query: refreshQuery(kind),
    folders,
    item,
  };
}

function add(map: Map<string, { item: FolderItem; folders: string[] }>, item: FolderItem, folder: string): void {
  const entry = map.get(item.id) ?? { item, folders: [] };
  entry.folders.push(folder);
  map.set(item.id, entry);
}

function isBelow(path: string, ancestor: string): boolean {
  return path.length > ancestor.length && path.startsWith(ancestor) && (path[ancestor.length] === '/' || path[ancestor.length] === '\\');
}

function depthOf(path: string): number {
  return path.split(/[\\/]/).filter(Boolean).length;
}
