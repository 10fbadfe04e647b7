// What one folder's delivery asks of the Targeted Scans plugin, the way the plugin is built (targeted-scans@0b5cabe
// README: "Receives a filesystem path (e.g. …/Season 1/S01E01.mkv)"), and only where it saves a walk:
//  - new files whose nearest item is the library's own (a new series, a new movie): one file per new folder below
//    the location, since the plugin queues a FullRefresh of each folder it creates (TargetedScanService.cs
//    L375-382), a validate that finds that folder's other files; every further file of it would cost another
//    refresh of each ancestor (L404-433), and Jellyfin's queue never merges two (ProviderManager.cs L1003-1025);
//  - paths gone from disk (it deletes that path's item, no walk): an upgrade's replaced file, a deleted episode, a
//    deleted series, and the Movie of a deleted movie folder (the folder is no item: MovieResolver L459-479).
// Never a path that is already an item: the plugin answers one with a FullRefresh and ReplaceAllMetadata of it and
// everything below it (L193-210), and a movie's folder by saving its Movie anew. Never below a plain Folder (an
// in-between folder such as /movies/hd): Jellyfin's plugin walks past it, deletes it and every item below it to
// re-create them (L78-97, L312-332). New files below a known season, series or folder go the item refresh's way:
// one validate of that item, cheaper than the two ancestor refreshes the plugin queues per file.
import type { ScanContext } from '../../scan.js';
import type { FileItems } from './file-items.js';
import type { FolderItem, Located } from './locate.js';
import type { PluginAsk } from './plugin.js';
import { sameForm, trimTrailingSeparator } from '../../paths/folder.js';

export interface PluginPlan {
  /** Paths for the plugin: new files and folders to create, paths gone from disk to remove. */
  asks: PluginAsk[];
  /** Files already items: refreshed as items (POST /Items/{id}/Refresh, Default), never sent to the plugin. */
  refresh: FolderItem[];
}

/**
 * The plugin's share of a folder (`located`: its deepest known item), or undefined when the folder goes the item
 * refresh's way instead. `folderGone`: the request deleted the folder itself (SeriesDelete, MovieDelete…).
 */
export async function pluginPlan(path: string, context: ScanContext, located: Located | undefined, folderGone: boolean, files: Pick<FileItems, 'itemsOf' | 'inside'>): Promise<PluginPlan | undefined> {
  if (!located) return undefined;
  // A plain Folder between the library and the folder: the plugin would delete it with everything below it.
  if (located.chain.slice(1).some((i) => i.type === 'Folder')) return undefined;
  const named = context.files;
  // An incomplete list (more files than the queue keeps): the folder as a whole.
  if (named?.more) return undefined;
  const live = named ? named.live : context.file && !context.deleted ? [context.file] : [];
  const gone = named?.gone ?? [];
  const own = sameForm(trimTrailingSeparator(located.item.path), path, path);
  if (live.length === 0 && gone.length === 0) {
    // A deleted series: its own item goes. A deleted movie folder is no item: the Movie (its file) goes.
    if (folderGone && own) return { asks: [{ path, gone: true }], refresh: [] };
    // A known season or series (or a library's own folder): its validate, which replaces nothing.
    if (own) return undefined;
    // A folder that is no item but holds one (a movie's folder holds its Movie), or whose files cannot be told.
    const inside = await files.inside(path, located.item);
    if (inside === undefined) return undefined;
    if (folderGone) return inside.length ? { asks: inside.map((i) => ({ path: i.path, gone: true })), refresh: [] } : undefined;
    if (inside.length > 0 || !located.isLibraryRoot) return undefined;
    return { asks: [{ path, gone: false }], refresh: [] };
  }
  const known = live.length ? await files.itemsOf(live, located.item) : new Map<string, FolderItem>();
  if (!known) return undefined;
  const fresh = live.filter((f) => !known.has(f));
  if (fresh.length && !located.isLibraryRoot) return undefined;
  return {
    asks: [...gone.map((g) => ({ path: g, gone: true })), ...onePerFolder(fresh, located.item.path).map((f) => ({ path: f, gone: false }))],
    refresh: live.flatMap((f) => known.get(f) ?? []),
  };
}

/** The first new file of each folder directly below `root`: the plugin's refresh of the folder it creates finds the rest. */
function onePerFolder(files: string[], root: string): string[] {
  const seen = new Set<string>();
  return files.filter((f) => {
    const top = f.slice(trimTrailingSeparator(root).length).split(/[\\/]/).filter(Boolean)[0] ?? f;
    if (seen.has(top)) return false;
    seen.add(top);
    return true;
  });
}
