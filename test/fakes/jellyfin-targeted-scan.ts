// The Targeted Scans plugin (d3v1l1989/targeted-scans at 0b5cabe, plugin 1.9.0) as the model runs it, Jellyfin's
// and Emby's. Cited as TS (jellyfin-plugin/Services/TargetedScanService.cs), TC (jellyfin-plugin/Controllers/
// ScanPathController.cs), ES (emby-plugin/Services/TargetedScanService.cs) and EA (emby-plugin/Api/ScanPathService.cs).
// It is built for file paths: a path that is already an item is refreshed with ReplaceAllMetadata, every item
// below it included; a path with no item has it (and its missing folders) created at once.
import { parentFolder } from '../../src/paths/folder.js';
import type { JellyfinModel, ModelItem, RefreshOptions } from './jellyfin-model.js';
import type { Priority } from './refresh-queue.js';

export type ScanStatus = 'Created' | 'Refreshed' | 'PathNotFound' | 'ParentNotFound' | 'Failed' | 'Removed' | 'Existing' | 'Error';
export type PluginKind = 'jellyfin' | 'emby';
/**
 * Which plugin answers the routes: Targeted Scans, or Omniscan's Jellyfin plugin (drondeseries/omniscan at
 * 2b50650, cited OS = jellyfin-plugin/Services/TargetedScanService.cs, OC = jellyfin-plugin/Controllers/
 * ScanPathController.cs), which installs the same routes and answers Created, Existing or Error.
 */
export type ScanPlugin = 'targeted-scans' | 'omniscan';

export interface ScanResult {
  status: ScanStatus;
  item?: ModelItem;
  message?: string;
}

const REPLACE_ALL: RefreshOptions = { mode: 'FullRefresh', replaceAll: true };

/** ScanPathAsync (TS L117-239; Emby: ES L75-172; Omniscan: OS L66-118) for one path. */
export function scanPath(model: JellyfinModel, kind: PluginKind, path: string, scanPlugin: ScanPlugin = 'targeted-scans'): ScanResult {
  if (scanPlugin === 'omniscan') return omniscanPath(model, path);
  if (!model.disk.has(path)) {
    // TS L121-148: a path gone from disk whose item exists has that item deleted (DeleteItem, its children too).
    const stale = model.itemAt(path);
    if (!stale) return { status: 'PathNotFound' };
    model.drop(stale);
    return { status: 'Removed', item: stale };
  }
  const existing = model.itemAt(path);
  if (existing) {
    // TS L193-210: FullRefresh + ReplaceAllMetadata at Normal (Emby: High, ES L127-144). For a folder the
    // validate refreshes every item below it with the same options: all their metadata is replaced.
    model.queueRefresh(existing.Id, `ScanPath ${path} (Refreshed)`, { priority: kind === 'jellyfin' ? 'Normal' : 'High', options: REPLACE_ALL });
    return { status: 'Refreshed', item: existing };
  }
  const { missing, ancestor } = walkUp(model, kind, path);
  if (!ancestor) return { status: 'ParentNotFound' };
  // CreateItemsAsync (TS L269-441): each missing path from the top, resolved and saved at once, then a High
  // FullRefresh + ReplaceAllMetadata of what was made (L375-382; ES L283-290); it stops at the first item that is
  // not a folder (L388-396): sent a movie's file, the plugin resolves the movie's folder first, to the Movie.
  let parent = ancestor;
  let last: ModelItem | undefined;
  for (const p of missing.reverse()) {
    const there = model.itemAt(p);
    if (there && kind === 'jellyfin' && there.Type === 'Folder') {
      // TS L312-332: a plain Folder met on the way down is deleted "so it can be re-created with correct type"
      // (DeleteItem without touching the disk): every item below it goes with it (LibraryManager.cs:409-411, L453),
      // and is made again only by the re-created folder's refresh, as new items.
      model.drop(there);
    } else if (there) {
      // TS L333-350: created meanwhile (a concurrent request): taken as it is.
      last = there;
      if (!there.IsFolder) break;
      parent = there;
      continue;
    }
    const made = resolveForPlugin(model, p, parent);
    if (!made) return { status: 'Failed' }; // L361-365: ResolvePath returned null
    model.queueRefresh(made.Id, `ScanPath ${path} (Created ${made.Type})`, { priority: 'High', options: REPLACE_ALL });
    last = made;
    if (!made.IsFolder) break;
    parent = made;
  }
  // L404-433: each typed ancestor from the known one up to (not including) the library's location, whose parent is
  // the root folder, top down: Default at Normal on Jellyfin; FullRefresh without ReplaceAllMetadata at High on
  // Emby (ES L316-345). For a season or series this is a validate of it.
  const ancestors: ModelItem[] = [];
  for (let a: ModelItem | undefined = ancestor; a?.ParentId; a = model.items.get(a.ParentId)) ancestors.unshift(a);
  const [priority, options]: [Priority, RefreshOptions] = kind === 'jellyfin' ? ['Normal', { mode: 'Default', replaceAll: false }] : ['High', { mode: 'FullRefresh', replaceAll: false }];
  for (const a of ancestors) model.queueRefresh(a.Id, `ScanPath ${path} (ancestor ${a.Type})`, { priority, options });
  model.countWalk(path, missing.length);
  return { status: 'Created', item: last };
}

/**
 * WalkUpToAncestor (TS L51-109; OS L128-182): climb to the nearest folder item. Jellyfin's skips a plain Folder
 * whose parent is a plain Folder (TS L78-97, OS L156-171): only a location's physical folder, whose parent is the
 * root folder, stops it, so an in-between folder (`/movies/hd`) is taken for missing. Emby's stops at any folder
 * (ES L51-73).
 */
function walkUp(model: JellyfinModel, kind: PluginKind, path: string): { missing: string[]; ancestor?: ModelItem } {
  const missing = [path];
  for (let p = path, up = parentFolder(p); up !== p; p = up, up = parentFolder(up)) {
    const found = model.itemAt(up);
    if (found?.IsFolder) {
      const parent = found.ParentId ? model.items.get(found.ParentId) : undefined;
      if (kind === 'emby' || found.Type !== 'Folder' || parent?.Type !== 'Folder') return { missing, ancestor: found };
    }
    missing.push(up);
  }
  return { missing };
}

/**
 * Omniscan's ScanPathAsync (OS L66-118): a path that is an item (FindByPath, on disk or not) is refreshed
 * ValidationOnly at once (OS L76-83, L262-275: no provider merges, nothing replaced) and answered Existing; it never
 * deletes an item. Otherwise each missing path is created under the known ancestor, each refreshed ValidationOnly
 * (OS L104-110, L188-250; an existing one is taken as it is, L195-210); a path not on disk makes nothing (L218-222)
 * and is answered Error "Item could not be created." (L112-115), as is a path under no library (L89-93).
 */
function omniscanPath(model: JellyfinModel, path: string): ScanResult {
  const existing = model.itemAt(path);
  if (existing) return { status: 'Existing', item: existing };
  const { missing, ancestor } = walkUp(model, 'jellyfin', path);
  if (!ancestor) return { status: 'Error', message: 'Path is not under any known library location.' };
  let last: ModelItem | undefined;
  for (const p of missing.reverse()) {
    const there = model.itemAt(p);
    const made = there ?? (model.disk.has(p) ? resolveForPlugin(model, p, ancestor) : undefined);
    last = made ?? last;
  }
  if (!last) return { status: 'Error', message: 'Item could not be created.' };
  model.countWalk(path, missing.length);
  return { status: 'Created', item: last };
}

/** ScanPathsAsync (TS L246-267; ES L179-200): distinct paths (ignoring case), shallowest first, one at a time. */
export function scanPaths(model: JellyfinModel, kind: PluginKind, paths: string[], scanPlugin: ScanPlugin = 'targeted-scans'): (ScanResult & { path: string })[] {
  const seen = new Set<string>();
  const unique = paths.filter((p) => p.trim() && !seen.has(p.toLowerCase()) && seen.add(p.toLowerCase()));
  const depth = (p: string) => [...p].filter((c) => c === '/' || c === '\\').length;
  // Omniscan takes the paths all at once and answers them in the order sent (OC L166-183).
  if (scanPlugin === 'omniscan') return paths.map((p) => ({ path: p, ...scanPath(model, kind, p, scanPlugin) }));
  return unique.sort((a, b) => depth(a) - depth(b)).map((p) => ({ path: p, ...scanPath(model, kind, p) }));
}

/**
 * ResolvePaths under the current parent, as a validate would resolve the path (jellyfin-model.ts `typeOf`): a
 * series folder, a season folder, an episode file; a plain Folder for a movie library's in-between folder; a
 * movie's folder resolves to its Movie, whose Path is the video file inside (MovieResolver.FindMovie,
 * jellyfin@v10.11.11 MovieResolver.cs:459-479). Saved by CreateItem, which writes over an item of the same path and
 * type (jellyfin-model.ts `create`).
 */
function resolveForPlugin(model: JellyfinModel, path: string, parent: ModelItem): ModelItem | undefined {
  const lib = model.libraryOf(path);
  const entry = model.disk.get(path);
  if (!lib || !entry) return undefined;
  const type = model.typeOf(path, entry.kind);
  if (lib.kind === 'movies' && entry.kind === 'folder' && !type) {
    const video = [...model.disk.keys()].filter((p) => parentFolder(p) === path && model.typeOf(p, model.disk.get(p)!.kind) === 'Movie').sort()[0];
    return video ? model.create(video, 'Movie', parent, model.disk.get(video)!.changedAt, `ScanPath ${path}`) : undefined;
  }
  return type ? model.create(path, type, parent, entry.changedAt, `ScanPath ${path}`) : undefined;
}

/**
 * The HTTP answer of the single route. Jellyfin (TC L66-97): Created and Refreshed 200, PathNotFound and
 * ParentNotFound 404, anything else (Removed included) 500 with Status "Failed". Emby (EA L108-155): always 200, the
 * Status in the body, Removed and Failed included.
 */
export function scanPathAnswer(kind: PluginKind, r: ScanResult, path: string, scanPlugin: ScanPlugin = 'targeted-scans'): [number, object] {
  const body = (status: string, message: string) => ({ ItemId: r.item?.Id ?? '', ItemName: r.item?.Name ?? '', Status: status, Path: '', Message: message });
  // Omniscan: always 200 with the result (OC L130); its Path is the item's, its Message says what it did (OS L305-330).
  if (scanPlugin === 'omniscan') return [200, { ...body(r.status, r.message ?? `${r.item?.Type ?? 'Item'} '${r.item?.Name ?? ''}' ${r.status === 'Existing' ? 'already in library.' : 'created successfully.'}`), Path: r.item?.Path ?? path }];
  if (kind === 'emby') return [200, body(r.status, r.status)];
  if (r.status === 'Created') return [200, body('Created', 'Item created and metadata refresh queued')];
  if (r.status === 'Refreshed') return [200, body('Refreshed', 'Existing item found, metadata refresh queued')];
  if (r.status === 'PathNotFound' || r.status === 'ParentNotFound') return [404, { ...body(r.status, r.status), ItemId: '', ItemName: '' }];
  return [500, { ItemId: '', ItemName: '', Status: 'Failed', Path: '', Message: `Failed to scan path: ${path}` }];
}

/** The batch route's answer (TC L106-135; EA L83-106): 200, each result's Status the enum's own name, Removed included. */
export function scanPathsAnswer(results: (ScanResult & { path: string })[], scanPlugin: ScanPlugin = 'targeted-scans'): object {
  const omniscan = scanPlugin === 'omniscan';
  return { Results: results.map((r) => ({ ItemId: r.item?.Id ?? '', ItemName: r.item?.Name ?? '', Status: r.status, Path: omniscan ? (r.item?.Path ?? r.path) : r.path, Message: r.message ?? r.path })) };
}

/** An empty Path: Jellyfin's [ApiController] answers the [Required] property with a validation problem first (TC L141-147). */
export const EMPTY_PATH_PROBLEM = { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'One or more validation errors occurred.', status: 400, errors: { Path: ['The Path field is required.'] } };
