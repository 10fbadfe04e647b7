// The Targeted Scans plugin (d3v1l1989/targeted-scans, POST /Library/ScanPath) as the model runs it: a path
// gone from disk removes its stale item; a path that is an item queues that item's refresh; any other path climbs
// to the nearest known folder item and has the items between created at once, without a validate. Its answer
// is {ItemId, ItemName, Status, Path, Message} with the plugin's Status -> HTTP mapping: Created and Refreshed
// 200, PathNotFound and ParentNotFound 404, an empty path 400, anything else (Removed included) 500.
import { isInside, parentFolder } from '../../src/paths/folder.js';
import type { JellyfinModel, ModelItem } from './jellyfin-model.js';

export type ScanStatus = 'Created' | 'Refreshed' | 'PathNotFound' | 'ParentNotFound' | 'Failed' | 'Removed' | 'BadRequest';

export interface ScanPathAnswer {
  http: number;
  body: { ItemId: string; ItemName: string; Status: string; Path: string; Message: string };
}

export function httpOfStatus(status: ScanStatus): number {
  if (status === 'Created' || status === 'Refreshed') return 200;
  if (status === 'PathNotFound' || status === 'ParentNotFound') return 404;
  if (status === 'BadRequest') return 400;
  return 500;
}

export function scanPath(model: JellyfinModel, path: string): ScanPathAnswer {
  const answer = (status: ScanStatus, item?: ModelItem, message = ''): ScanPathAnswer => ({
    http: httpOfStatus(status),
    // The single-path answer leaves Path empty; a 500 says only "Failed" over HTTP but the body keeps the Status.
    body: { ItemId: item?.Id ?? '', ItemName: item?.Name ?? '', Status: status, Path: '', Message: message },
  });
  if (!path) return answer('BadRequest', undefined, 'Path is required');
  if (!model.disk.has(path)) {
    const stale = model.itemAt(path);
    if (!stale) return answer('PathNotFound');
    model.drop(stale);
    return answer('Removed', stale);
  }
  const existing = model.itemAt(path);
  if (existing) {
    model.queueRefresh(existing.Id, `ScanPath ${path}`);
    return answer('Refreshed', existing);
  }
  let ancestor: ModelItem | undefined;
  for (let p = parentFolder(path); !ancestor; p = parentFolder(p)) {
    const found = model.itemAt(p);
    if (found?.IsFolder) ancestor = found;
    if (p === parentFolder(p)) break;
  }
  if (!ancestor) return answer('ParentNotFound');
  // The items between the ancestor and the path, then everything below the path, each resolved once.
  const between: string[] = [];
  for (let p = path; p !== ancestor.Path; p = parentFolder(p)) between.unshift(p);
  const below = [...model.snapshotOf(path)].filter(([p]) => isInside(p, path)).sort(([a], [b]) => a.length - b.length);
  let made: ModelItem | undefined;
  for (const p of between) {
    const e = model.disk.get(p)!;
    made = model.itemAt(p) ?? model.resolve(p, e) ?? made;
  }
  for (const [p, e] of below) {
    const item = model.itemAt(p) ?? model.resolve(p, e);
    if (item) model.bringUpTo(item, e.changedAt);
    made ??= item;
  }
  model.countWalk(path, between.length + below.length);
  return made ? answer('Created', made) : answer('Failed', undefined, `nothing resolved at ${path}`);
}
