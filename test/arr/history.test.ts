// Each app's history records (test/fixtures/arr-api/<app>-history.json, their shapes from the app's own
// HistoryService.cs) become exactly the scan requests the webhook of the same event (test/fixtures/arr/) makes,
// only their source saying they came from the app's history; and what no webhook scans for is set aside, said why.
import { describe, expect, it } from 'vitest';
import { arrApp } from '../../src/arr/apps.js';
import { historyScans } from '../../src/arr/history.js';
import { byDate, readRecord, type HistoryRecord } from '../../src/arr/records.js';
import type { ArrType } from '../../src/config/arr-schema.js';
import type { ScanRequest, Source } from '../../src/request.js';
import type { Payload } from '../../src/triggers/payload.js';
import { parseScanBody } from '../../src/triggers/index.js';
import { ownFixture } from '../support/fixtures.js';

interface Case {
  fixture: string;
  type: ArrType;
  version: string;
  userAgent: string;
  /** The owner object (its IDs) the catch-up reads by id, as the webhook fixture carries it. */
  owners?: Record<number, string>;
  /** Record ids → the webhook fixture of the same event. */
  events: [number[], string][];
  /** Record ids no webhook scans for. */
  setAside: number[];
}

const cases: Case[] = [
  {
    fixture: 'sonarr',
    type: 'sonarr',
    version: '4.0.14.2939',
    userAgent: 'Sonarr/4.0.14.2939 (ubuntu 24.04)',
    owners: { 17: 'sonarr-download.json' },
    events: [[[5002], 'sonarr-download.json'], [[5003, 5004], 'sonarr-rename.json'], [[5005, 5006], 'sonarr-upgrade.json'], [[5007], 'sonarr-episodefiledelete.json']],
    setAside: [5001, 5008],
  },
  {
    fixture: 'radarr',
    type: 'radarr',
    version: '5.21.1.9799',
    userAgent: 'Radarr/5.21.1.9799 (alpine 3.21)',
    owners: { 211: 'radarr-download.json' },
    events: [[[6002], 'radarr-download.json'], [[6003], 'radarr-rename.json'], [[6004, 6005], 'radarr-upgrade.json'], [[6006], 'radarr-moviefiledelete.json']],
    setAside: [6001],
  },
  {
    fixture: 'lidarr',
    type: 'lidarr',
    version: '2.11.2.4629',
    userAgent: 'Lidarr/2.11.2.4629 (debian 12)',
    events: [[[7002, 7003], 'lidarr-download.json'], [[7005, 7006], 'lidarr-rename.json'], [[7007], 'lidarr-retag.json']],
    setAside: [7001, 7004],
  },
  {
    fixture: 'readarr',
    type: 'readarr',
    version: '0.4.18.2805',
    userAgent: 'Readarr/0.4.18.2805 (ubuntu 22.04)',
    events: [[[8002], 'readarr-download.json'], [[8003], 'readarr-rename.json'], [[8004], 'readarr-retag.json'], [[8005], 'readarr-bookfiledelete.json']],
    setAside: [8001],
  },
  {
    fixture: 'whisparr',
    type: 'whisparr',
    version: '2.0.0.1046',
    userAgent: 'Whisparr/2.0.0.1046 (alpine 3.20)',
    owners: { 9: 'whisparr-download.json' },
    events: [[[9001], 'whisparr-download.json']],
    setAside: [],
  },
  {
    fixture: 'whisparr-v3',
    type: 'whisparr',
    version: '3.0.0.1234',
    userAgent: 'Whisparr/3.0.0.1234 (alpine 3.20)',
    owners: { 58: 'whisparr-v3-download.json' },
    events: [[[9101], 'whisparr-v3-download.json']],
    setAside: [],
  },
];

/** The owner object of a webhook fixture (its series or movie), as GET series/{id} or movie/{id} answers it. */
function ownerOf(webhook: string): Payload {
  const body = ownFixture<Payload>(`arr/${webhook}`);
  const o = (body.series ?? body.movie) as Payload;
  return { title: o.title, tvdbId: o.tvdbId, tmdbId: o.tmdbId, imdbId: o.imdbId };
}

function records(c: Case): HistoryRecord[] {
  const arr = arrApp(c.type, c.version);
  return ownFixture<unknown[]>(`arr-api/${c.fixture}-history.json`)
    .map((raw) => readRecord(raw, arr))
    .map((r) => {
      if (!r.ok) throw new Error(r.reason);
      return r.record;
    })
    .sort(byDate);
}

describe.each(cases)('$fixture history records', (c) => {
  const arr = arrApp(c.type, c.version);
  const owners = new Map(Object.entries(c.owners ?? {}).map(([id, file]) => [Number(id), ownerOf(file)]));
  const { scans, skipped } = historyScans(arr, c.type, records(c), owners);

  it.each(c.events)('records %j ask for what %s asks for', (ids, webhook) => {
    const result = parseScanBody(ownFixture(`arr/${webhook}`), c.userAgent);
    if (result.kind !== 'scan') throw new Error(`${webhook} is not a scan`);
    const mine = scans.filter((s) => s.records.every((r) => ids.includes(r.id)));
    expect(mine.flatMap((s) => s.records.map((r) => r.id)).sort()).toEqual(ids);
    expect(new Set(mine.map((s) => s.event))).toEqual(new Set([result.event]));
    const asHistory = result.requests.map((r): ScanRequest => ({ ...r, source: `${result.source}-history` as Source }));
    expect(mine.flatMap((s) => s.requests)).toEqual(asHistory);
  });

  it('sets aside the records no webhook scans for, saying why', () => {
    expect(skipped.map((s) => s.id).sort()).toEqual(c.setAside);
    for (const s of skipped) expect(s.reason).toMatch(/records name no file scanrelay scans for/);
  });
});

describe('what only the history tells', () => {
  it("Lidarr's deleted track file, which no Lidarr webhook names, scans its folder", () => {
    const lidarr = cases.find((c) => c.fixture === 'lidarr')!;
    const { scans } = historyScans(arrApp('lidarr', '2'), 'lidarr', records(lidarr));
    expect(scans.find((s) => s.records[0].id === 7008)).toMatchObject({
      event: 'TrackFileDelete',
      requests: [{ path: '/data/media/music/Radiohead/OK Computer (1997)/01 - Airbag.flac', source: 'lidarr-history', event: 'TrackFileDelete', kind: 'file', deleted: true }],
    });
  });

  it('an upgrade whose import came an hour after the delete is a delete and an import, not one upgrade', () => {
    const sonarr = arrApp('sonarr', '4');
    const at = Date.UTC(2026, 2, 1, 12);
    const deleted: HistoryRecord = { id: 1, date: at, eventType: 'episodeFileDeleted', sourceTitle: '/tv/S/Season 01/old.mkv', item: 5, data: { reason: 'Upgrade' } };
    const imported: HistoryRecord = { id: 2, date: at + 2 * 60 * 60_000, eventType: 'downloadFolderImported', item: 5, data: { importedPath: '/tv/S/Season 01/new.mkv' } };
    expect(historyScans(sonarr, 'sonarr', [deleted, imported]).scans.map((s) => s.event)).toEqual(['EpisodeFileDelete', 'Download']);
  });

  it('a record without its path is set aside with the key it lacks', () => {
    const { scans, skipped } = historyScans(arrApp('radarr', '5'), 'radarr', [
      { id: 3, date: 0, eventType: 'downloadFolderImported', data: {} },
      { id: 4, date: 1, eventType: 'movieFileRenamed', data: {} },
      { id: 5, date: 2, eventType: 'movieFileDeleted', data: { reason: 'Manual' } },
    ]);
    expect(scans).toEqual([]);
    expect(skipped.map((s) => s.reason)).toEqual([
      'downloadFolderImported record has no data.importedPath',
      'movieFileRenamed record has no data.path or data.sourcePath',
      "movieFileDeleted record has no sourceTitle (the file's path)",
    ]);
  });
});

describe('reading a record', () => {
  const sonarr = arrApp('sonarr', '4');
  it.each([
    ['a list', [], 'not a JSON object'],
    ['no id', { date: '2026-03-01T20:05:12Z', eventType: 'grabbed' }, 'no id'],
    ['a date that is none', { id: 7, date: 'yesterday', eventType: 'grabbed' }, 'record 7 has no date'],
    ['no eventType', { id: 8, date: '2026-03-01T20:05:12Z' }, 'record 8 has no eventType'],
  ])('%s is set aside: %s', (_, raw, reason) => {
    expect(readRecord(raw, sonarr)).toEqual({ ok: false, reason });
  });

  it('keeps the data strings (a null value is left out) and reads a date without a zone as UTC', () => {
    const r = readRecord({ id: 9, episodeId: 3, seriesId: 4, date: '2026-03-01T20:05:12', eventType: 'downloadFolderImported', data: { importedPath: '/tv/a.mkv', releaseGroup: null, size: 12 } }, sonarr);
    expect(r).toEqual({ ok: true, record: { id: 9, date: Date.UTC(2026, 2, 1, 20, 5, 12), eventType: 'downloadFolderImported', item: 3, owner: 4, data: { importedPath: '/tv/a.mkv' } } });
  });
});

// Issue 52, finding 1: records of one file were grouped by copying arrays (quadratic) and their places taken with
// Math.min(...) over the group (past the stack at 200,000 records). An app's answer may hold that many.
describe('an answer of 200,000 records of one file', () => {
  const sonarr = arrApp('sonarr', '4');
  const at = Date.UTC(2026, 2, 1, 12);
  const many = (make: (i: number) => HistoryRecord): HistoryRecord[] => Array.from({ length: 200_000 }, (_, i) => make(i));

  it('imports of one file are one Download, its records all kept', () => {
    const records = many((i) => ({ id: i + 1, date: at + i, eventType: 'downloadFolderImported', downloadId: 'D', item: 5, data: { importedPath: '/tv/S/Season 01/e.mkv' } }));
    const { scans } = historyScans(sonarr, 'sonarr', records);
    expect(scans).toHaveLength(1);
    expect(scans[0]).toMatchObject({ event: 'Download', first: 0 });
    expect(scans[0].records).toHaveLength(200_000);
  });

  it('renames and deletes of one file are one Rename and one delete, upgrades each paired once', () => {
    const rename = (i: number): HistoryRecord => ({ id: i + 1, date: at + i, eventType: 'episodeFileRenamed', data: { sourcePath: '/tv/S/a.mkv', path: '/tv/S/b.mkv' } });
    const del = (i: number): HistoryRecord => ({ id: 300_001 + i, date: at + i, eventType: 'episodeFileDeleted', sourceTitle: '/tv/S/c.mkv', item: 9, data: { reason: i % 2 ? 'Upgrade' : 'Manual' } });
    const imported = (i: number): HistoryRecord => ({ id: 600_001 + i, date: at + i, eventType: 'downloadFolderImported', downloadId: `D${i}`, item: 9, data: { importedPath: `/tv/S/n${i}.mkv` } });
    const records = [...many(rename), ...many(del), ...many(imported)].sort(byDate);
    const { scans } = historyScans(sonarr, 'sonarr', records);
    const byEvent = new Map<string, number>();
    for (const s of scans) byEvent.set(s.event, (byEvent.get(s.event) ?? 0) + s.records.length);
    expect(byEvent.get('Rename')).toBe(200_000);
    // Each Upgrade delete goes with the import a millisecond after it (or its own, at the same time): none twice.
    expect(scans.filter((s) => s.event === 'Upgrade').flatMap((s) => s.records).filter((r) => r.eventType === 'episodeFileDeleted')).toHaveLength(100_000);
    expect(byEvent.get('EpisodeFileDelete')).toBe(100_000);
  }, 60_000);
});
