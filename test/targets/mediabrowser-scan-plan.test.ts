// The scan plan by SCAN_METHOD, pure: which calls go out for the folders due together, and how the plugin's
// answers (its 500 "Failed" for a removed path included) read. test/targets/jellyfin-scans.test.ts drives the real target
// with it through the service against the model Jellyfin.
import { describe, expect, it } from 'vitest';
import type { FolderItem, Located } from '../../src/targets/mediabrowser/locate.js';
import { explainFolder, planScans, pluginAnswer, type DueFolder } from '../../src/targets/mediabrowser/scan-plan.js';

const root: FolderItem = { id: 'tv', path: '/tv', type: 'CollectionFolder' };
const series: FolderItem = { id: 's1', path: '/tv/A', type: 'Series' };
const season: FolderItem = { id: 'se1', path: '/tv/A/Season 01', type: 'Season' };
const at = (...chain: FolderItem[]): Located => ({ library: { id: 'tv', name: 'Shows', locations: ['/tv'] }, item: chain[chain.length - 1], chain, depth: chain.length - 1, isLibraryRoot: chain.length === 1, requests: 0 });
const due = (path: string, located?: Located, extra: Partial<DueFolder> = {}): DueFolder => ({ path, deleted: false, gone: false, located, ...extra });

describe('planScans', () => {
  it('refreshes each distinct deepest item once, a series covering its seasons, and the root once, last', () => {
    const plan = planScans({
      kind: 'jellyfin',
      method: 'auto',
      folders: [due('/tv/A/Season 01', at(root, series, season)), due('/tv/A/Season 02', at(root, series)), due('/tv/B', at(root)), due('/tv/C', at(root)), due('/x')],
    });
    expect(plan.calls.map((c) => [c.kind, c.item?.id, c.folders])).toEqual([
      ['refresh-item', 's1', ['/tv/A/Season 02', '/tv/A/Season 01']],
      ['refresh-library', 'tv', ['/tv/B', '/tv/C']],
    ]);
    expect(plan.calls[0].query).toEqual({ metadataRefreshMode: 'Default', imageRefreshMode: 'Default', replaceAllMetadata: 'false', replaceAllImages: 'false' });
    expect(plan.unmatched).toEqual(['/x']);
    expect(plan.notes).toHaveLength(1);
    expect(plan.notes[0]).toMatch(/once for 2 folders.*walks the whole library.*ScanPath/);
  });

  it('refreshes the parent of a folder that is itself gone, and the season of a deleted episode', () => {
    const plan = planScans({
      kind: 'jellyfin',
      method: 'item',
      folders: [due('/tv/A', at(root, series), { deleted: true, gone: true }), due('/tv/A/Season 01', at(root, series, season), { deleted: true })],
    });
    expect(plan.calls.map((c) => [c.kind, c.item?.id])).toEqual([
      ['refresh-item', 'se1'],
      ['refresh-library', 'tv'],
    ]);
    expect(explainFolder('jellyfin', due('/tv/A', at(root, series), { gone: true }))).toMatch(/library 'Shows' as a whole/);
    expect(explainFolder('jellyfin', due('/tv/A/Season 01', at(root, series, season)))).toMatch(/Season '\/tv\/A\/Season 01'/);
  });

  it('sends the monitor one notice for all, a library refresh per library', () => {
    const folders = [due('/tv/A/Season 01', at(root, series, season)), due('/tv/B', at(root), { deleted: true })];
    expect(planScans({ kind: 'jellyfin', method: 'media-updated', folders }).calls.map((c) => c.body)).toEqual([
      { Updates: [{ Path: '/tv/A/Season 01', UpdateType: 'Modified' }, { Path: '/tv/B', UpdateType: 'Deleted' }] },
    ]);
    expect(planScans({ kind: 'jellyfin', method: 'library', folders }).calls.map((c) => [c.item?.id, c.folders.length])).toEqual([['tv', 2]]);
  });

  it('reads the plugin’s answers by their Status: its 500 "Failed" for a path gone from disk is the item removed', () => {
    expect(pluginAnswer(500, { Status: 'Failed' }, true)).toBe('done');
    expect(pluginAnswer(404, { Status: 'PathNotFound' }, true)).toBe('done');
    expect(pluginAnswer(200, { Status: 'Removed' })).toBe('done');
    // Emby's plugin answers 200 always: its Failed is a failure, and the item refresh takes the folder.
    expect(pluginAnswer(200, { Status: 'Failed' })).toBe('fallback');
    expect(pluginAnswer(500, { Status: 'Failed' })).toBe('fallback');
    expect(pluginAnswer(200, { Status: 'BadRequest' })).toBe('retry');
    expect(pluginAnswer(200, { Status: 'Created' })).toBe('done');
    expect(pluginAnswer(404, { Status: 'ParentNotFound' })).toBe('fallback');
    expect(pluginAnswer(404, undefined)).toBe('absent');
    expect(pluginAnswer(502, undefined)).toBe('retry');
  });

  it('reads Omniscan\'s answers as what they mean: Existing is nothing to do (a failure for a path gone), Error a failure', () => {
    expect(pluginAnswer(200, { Status: 'Existing', Message: "Episode 'x' already in library." })).toBe('done');
    // Omniscan never deletes: Existing for a path gone from disk says its item is still there.
    expect(pluginAnswer(200, { Status: 'Existing' }, true)).toBe('fallback');
    expect(pluginAnswer(200, { Status: 'Error', Message: 'Item could not be created.' })).toBe('fallback');
    expect(pluginAnswer(200, { Status: 'Error', Message: 'Item could not be created.' }, true)).toBe('fallback');
    // Emby's plugin: 200 "Failed" for a path gone is a failure too, not a removal.
    expect(pluginAnswer(200, { Status: 'Failed' }, true)).toBe('fallback');
  });
});
