// What one folder's delivery asks of the Targeted Scans plugin, the way the plugin is built (targeted-scans@0b5cabe
// README: "Receives a filesystem path (e.g. …/Season 1/S01E01.mkv)"): the files the requests named that have no
// item yet (it creates each at once), and every path gone from disk (it deletes that path's item: an upgrade's
// replaced file, a deleted episode, a deleted series). Never a path that is already an item: the plugin answers one
// with a FullRefresh and ReplaceAllMetadata of it and everything below it (TargetedScanService.cs L193-210), and a
// movie's folder by saving its Movie anew. Such files are refreshed as items instead, and a folder that is an item
// (a known season or series), or holds one (a movie's folder), goes the item refresh's way.
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
  const named = context.files;
  // An incomplete list (more files than the queue keeps): the folder as a whole.
  if (named?.more) return undefined;
  const live = named ? named.live : context.file && !context.deleted ? [context.file] : [];
  const gone = named?.gone ?? [];
  if (live.length === 0 && gone.length === 0) {
    if (folderGone) return { asks: [{ path, gone: true }], refresh: [] };
    // A known season or series (or a library's own folder): its validate, which replaces nothing.
    if (sameForm(trimTrailingSeparator(located.item.path), path, path)) return undefined;
    // A folder that is no item but holds one (a movie's folder holds its Movie), or whose files cannot be told.
    const inside = await files.inside(path, located.item);
    if (inside === undefined || inside.length > 0) return undefined;
    return { asks: [{ path, gone: false }], refresh: [] };
  }
  const known = live.length ? await files.itemsOf(live, located.item) : new Map<string, FolderItem>();
  if (!known) return undefined;
  return {
    asks: [...gone.map((g) => ({ path: g, gone: true })), ...live.filter((f) => !known.has(f)).map((f) => ({ path: f, gone: false }))],
    refresh: live.flatMap((f) => known.get(f) ?? []),
  };
}
