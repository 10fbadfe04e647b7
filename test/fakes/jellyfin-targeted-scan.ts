// The Targeted Scans plugin (d3v1l1989/targeted-scans at 0b5cabe, plugin 1.9.0) as the model runs it, Jellyfin's
// and Emby's. Cited as TS (jellyfin-plugin/Services/TargetedScanService.cs), TC (jellyfin-plugin/Controllers/
// ScanPathController.cs), ES (emby-plugin/Services/TargetedScanService.cs) and EA (emby-plugin/Api/ScanPathService.cs).
// It is built for file paths: a path that is already an item is refreshed with ReplaceAllMetadata, every item
// below it included; a path with no item has it (and its missing folders) created at once.
import { parentFolder } from '../../src/paths/folder.js';
import type { JellyfinModel, ModelItem, RefreshOptions } from './jellyfin-model.js';
import type { Priority } from './refresh-queue.js';

export type ScanStatus = 'Created' | 'Refreshed' | 'PathNotFound' | 'ParentNotFound' | 'Failed' | 'Removed';
export type PluginKind = 'jellyfin' | 'emby';

export interface ScanResult {
  status: ScanStatus;
  item?: ModelItem;
}

const REPLACE_ALL: RefreshOptions = { mode: 'FullRefresh', replaceAll: true };

/** ScanPathAsync (TS L117-239; Emby: ES L75-172) for one path. */
export function scanPath(model: JellyfinModel, kind: PluginKind, path: string): ScanResult {
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
    // (TS L165-192 first deletes mis-typed plain Video/Folder items; the model makes none: its only plain
    // Folders are the libraries' physical folders, whose parent is the root folder.)
    model.queueRefresh(existing.Id, `ScanPath ${path} (Refreshed)`, { priority: kind === 'jellyfin' ? 'Normal' : 'High', options: REPLACE_ALL });
    return { status: 'Refreshed', item: existing };
  }
  // WalkUpToAncestor (TS L51-109): climb to the nearest folder item; Jellyfin's skips plain Folders that are not a
  // library's location, Emby's stops at any folder (ES L51-73). The model's plain Folders are all locations.
  const missing = [path];
  let ancestor: ModelItem | undefined;
  for (let p = path, up = parentFolder(p); up !== p && !ancestor; p = up, up = parentFolder(up)) {
    const found = model.itemAt(up);
    if (found?.IsFolder) ancestor = found;
    else missing.push(up);
  }
  if (!ancestor) return { status: 'ParentNotFound' };
  // CreateItemsAsync (TS L269-441): each missing path from the top, resolved and saved at once, then a High
  // FullRefresh + ReplaceAllMetadata of what was made (L375-382; ES L283-290); it stops at the first item that is
  // not a folder (L388-396): sent a movie's file, the plugin resolves the movie's folder first, to the Movie.
  let parent = ancestor;
  let last: ModelItem | undefined;
  for (const p of missing.reverse()) {
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

/** ScanPathsAsync (TS L246-267; ES L179-200): distinct paths (ignoring case), shallowest first, one at a time. */
export function scanPaths(model: JellyfinModel, kind: PluginKind, paths: string[]): (ScanResult & { path: string })[] {
  const seen = new Set<string>();
  const unique = paths.filter((p) => p.trim() && !seen.has(p.toLowerCase()) && seen.add(p.toLowerCase()));
  const depth = (p: string) => [...p].filter((c) => c === '/' || c === '\\').length;
  return unique.sort((a, b) => depth(a) - depth(b)).map((p) => ({ path: p, ...scanPath(model, kind, p) }));
}

/**
 * ResolvePaths under the current parent: in a TV library a series folder, a season folder or an episode file; in
 * a movie library a movie's folder resolves to its Movie, whose Path is the video file inside
 * (MovieResolver.FindMovie, jellyfin@v10.11.11 MovieResolver.cs:459-479). Saved by CreateItem, which writes over an
 * item of the same path and type (jellyfin-model.ts `create`).
 */
function resolveForPlugin(model: JellyfinModel, path: string, parent: ModelItem): ModelItem | undefined {
  const lib = model.libraryOf(path);
  const entry = model.disk.get(path);
  if (!lib || !entry) return undefined;
  if (lib.kind === 'movies') {
    const video = entry.kind === 'file' ? path : [...model.disk.keys()].filter((p) => parentFolder(p) === path && model.disk.get(p)!.kind === 'file').sort()[0];
    return video ? model.create(video, 'Movie', model.items.get(lib.physicalId)!, model.disk.get(video)!.changedAt, `ScanPath ${path}`) : undefined;
  }
  const depth = path.slice(lib.location.length).split('/').filter(Boolean).length;
  const type = entry.kind === 'file' ? 'Episode' : depth === 1 ? 'Series' : depth === 2 ? 'Season' : undefined;
  return type ? model.create(path, type, parent, entry.changedAt, `ScanPath ${path}`) : undefined;
}

/**
 * The HTTP answer of the single route. Jellyfin (TC L66-97): Created and Refreshed 200, PathNotFound and
 * ParentNotFound 404, anything else (Removed included) 500 with Status "Failed". Emby (EA L108-155): always 200, the
 * Status in the body, Removed and Failed included.
 */
export function scanPathAnswer(kind: PluginKind, r: ScanResult, path: string): [number, object] {
  const body = (status: string, message: string) => ({ ItemId: r.item?.Id ?? '', ItemName: r.item?.Name ?? '', Status: status, Path: '', Message: message });
  if (kind === 'emby') return [200, body(r.status, r.status)];
  if (r.status === 'Created') return [200, body('Created', 'Item created and metadata refresh queued')];
  if (r.status === 'Refreshed') return [200, body('Refreshed', 'Existing item found, metadata refresh queued')];
  if (r.status === 'PathNotFound' || r.status === 'ParentNotFound') return [404, { ...body(r.status, r.status), ItemId: '', ItemName: '' }];
  return [500, { ItemId: '', ItemName: '', Status: 'Failed', Path: '', Message: `Failed to scan path: ${path}` }];
}

/** The batch route's answer (TC L106-135; EA L83-106): 200, each result's Status the enum's own name, Removed included. */
export function scanPathsAnswer(results: (ScanResult & { path: string })[]): object {
  return { Results: results.map((r) => ({ ItemId: r.item?.Id ?? '', ItemName: r.item?.Name ?? '', Status: r.status, Path: r.path, Message: r.path })) };
}

/** An empty Path: Jellyfin's [ApiController] answers the [Required] property with a validation problem first (TC L141-147). */
export const EMPTY_PATH_PROBLEM = { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'One or more validation errors occurred.', status: 400, errors: { Path: ['The Path field is required.'] } };
