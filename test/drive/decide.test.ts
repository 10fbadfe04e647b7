// The change -> scan-request decision on its own, without Drive, a cache or a queue: each verdict from plain values.
import { describe, expect, it } from 'vitest';
import type { DriveFile } from '../../src/drive/api.js';
import type { CachedItem } from '../../src/drive/cache.js';
import { cacheAction, scanVerdict, type ScanRules } from '../../src/drive/decide.js';
import { withGoogleDefaults } from '../../src/drive/settings.js';

const FOLDER = 'application/vnd.google-apps.folder';
const file: DriveFile = { id: 'f1', name: 'ep1.mkv', mimeType: 'video/x-matroska', parents: ['p'], size: '700' };
const item = (over: Partial<CachedItem> = {}): CachedItem => ({
  id: 'f1', drive: 'root', name: 'ep1.mkv', parent: 'p', mime: file.mimeType, size: 700, md5: 'aa', path: 'My Drive/Media/TV/Show/ep1.mkv', ...over,
});

function rules(over: Partial<ScanRules> = {}): ScanRules {
  return {
    allowed: { ...withGoogleDefaults({}).ALLOWED, FILE_PATHS: ['My Drive/Media/'] },
    ignoreSize: false,
    mapPath: (p) => p.replace(/^My Drive\/Media\//, '/data/'),
    inPlex: () => false,
    ...over,
  };
}

describe('cacheAction', () => {
  it('tells drive changes, removals, moves to another drive, trash and updates apart', () => {
    const myDrive = { key: 'root' };
    const shared = { key: 'D1', driveId: 'D1' };
    expect(cacheAction(myDrive, { changeType: 'drive', driveId: 'D1' })).toEqual({ kind: 'drive' });
    expect(cacheAction(myDrive, { removed: true, fileId: 'x' })).toEqual({ kind: 'remove', id: 'x' });
    expect(cacheAction(shared, { fileId: 'f1', file: { ...file, driveId: 'D2' } })).toEqual({ kind: 'remove', id: 'f1', onlyFrom: 'D1' });
    expect(cacheAction(myDrive, { fileId: 'f1', file: { ...file, driveId: 'D2' } })).toEqual({ kind: 'remove', id: 'f1', onlyFrom: 'root' });
    expect(cacheAction(myDrive, { fileId: 'f1', file: { ...file, trashed: true } })).toEqual({ kind: 'remove', id: 'f1' });
    expect(cacheAction(shared, { fileId: 'f1', file: { ...file, driveId: 'D1' } })).toEqual({ kind: 'upsert', file: { ...file, driveId: 'D1' } });
  });
});

describe('scanVerdict', () => {
  it('a new file under GOOGLE.ALLOWED that maps and is not in Plex is a scan of its drive path', () => {
    expect(scanVerdict(file, undefined, item(), rules(), new Set())).toEqual({
      verdict: 'scan',
      drivePath: 'My Drive/Media/TV/Show/ep1.mkv',
      serverPath: '/data/TV/Show/ep1.mkv',
    });
  });

  it('folders, unchanged files, files outside ALLOWED and repeats within a page are not scanned', () => {
    expect(scanVerdict({ ...file, mimeType: FOLDER }, undefined, item({ mime: FOLDER }), rules(), new Set()).verdict).toBe('folder');
    expect(scanVerdict(file, item(), item(), rules(), new Set()).verdict).toBe('unchanged');
    expect(scanVerdict(file, item({ md5: 'bb' }), item(), rules(), new Set()).verdict).toBe('scan');
    expect(scanVerdict(file, undefined, item({ path: 'My Drive/Other/ep1.mkv' }), rules(), new Set()).verdict).toBe('unwanted');
    expect(scanVerdict(file, undefined, item(), rules(), new Set(['My Drive/Media/TV/Show/ep1.mkv'])).verdict).toBe('duplicate');
  });

  it('an unmapped path names its root; a gate refusal carries the message; a file in Plex is skipped (by name when sizes are ignored)', () => {
    expect(scanVerdict(file, undefined, item(), rules({ mapPath: (p) => p }), new Set())).toEqual({
      verdict: 'unmapped',
      drivePath: 'My Drive/Media/TV/Show/ep1.mkv',
      root: 'My Drive/Media/TV',
    });
    const refused = rules({ gate: () => ({ ok: false, message: 'the path holds ".."' }) });
    expect(scanVerdict(file, undefined, item(), refused, new Set())).toEqual({ verdict: 'refused', message: 'the path holds ".."' });
    const sizes: (number | undefined)[] = [];
    const inPlex = (_p: string, size?: number) => (sizes.push(size), true);
    expect(scanVerdict(file, undefined, item(), rules({ inPlex }), new Set()).verdict).toBe('in-plex');
    expect(scanVerdict(file, undefined, item(), rules({ inPlex, ignoreSize: true }), new Set()).verdict).toBe('in-plex');
    expect(sizes).toEqual([700, undefined]);
    const broken = rules({ inPlex: () => { throw new Error('database locked'); } });
    expect(scanVerdict(file, undefined, item(), broken, new Set()).verdict).toBe('scan');
  });
});
