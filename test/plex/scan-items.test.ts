// From a section scan's notification events to the items it touched (src/targets/plex/follow/scan-items.ts), and from those
// to the delivered files, one metadata request per item that can hold a file (the same file).
import { describe, expect, it } from 'vitest';
import { parseNotification } from '../../src/targets/plex/follow/notifications.js';
import { itemsOfScans, itemFiles, SectionScans, type PlexGet, type PlexNotification, type SectionScanEnded } from '../../src/targets/plex/follow/scan-items.js';
import { ownFixtureText } from '../support/fixtures.js';

const frame = (name: string) => parseNotification(ownFixtureText(`plex/notifications/${name}.json`));
const entry = (sectionId: string, itemId: string, state: number, type = 1): PlexNotification => ({ kind: 'timeline', sectionId, itemId, state, type });
const act = (event: 'started' | 'updated' | 'ended', uuid: string, sectionId?: string): PlexNotification => ({ kind: 'activity', event, uuid, type: 'library.update.section', sectionId });

function watch() {
  const ended: SectionScanEnded[] = [];
  const scans = new SectionScans((s) => ended.push(s));
  return { scans, ended, feed: (events: PlexNotification[]) => events.forEach((e) => scans.handle(e)) };
}

describe('SectionScans', () => {
  it('hands over the items of a scan when its activity ends, placing the end by the uuid Plex named a section for', () => {
    const { feed, ended, scans } = watch();
    feed(frame('activity-started')); // no section yet
    feed(frame('activity-updated')); // section 2
    expect(scans.scanning()).toEqual(new Set(['2']));
    feed(frame('timeline-created'));
    expect(ended).toEqual([]);
    feed([act('ended', '6f1c2a4e-9b0d-4e3a-8c55-2f7d1e0a9b31')]); // an end without Context still places
    expect(ended).toHaveLength(1);
    expect(ended[0].sectionId).toBe('2');
    expect(ended[0].touched).toEqual([
      { ratingKey: '48213', type: 4, created: true },
      { ratingKey: '48214', type: 4, created: true },
      { ratingKey: '48212', type: 3, created: true },
    ]);
    expect(scans.scanning()).toEqual(new Set());
  });

  it('keeps sections apart, counts updated items, drops deleted ones, and starts afresh after each end', () => {
    const { feed, ended } = watch();
    feed([act('started', 'a', '1'), act('started', 'b', '2'), entry('1', '10', 0), entry('2', '20', 0), entry('1', '11', 1), entry('1', '12', 0), entry('1', '12', 9)]);
    feed([act('ended', 'a', '1')]);
    expect(ended[0]).toMatchObject({ sectionId: '1', touched: [{ ratingKey: '10', created: true }, { ratingKey: '11', created: false }], deleted: ['12'] });
    feed([act('started', 'c', '1'), act('ended', 'c', '1')]);
    expect(ended[1]).toMatchObject({ sectionId: '1', touched: [], deleted: [] });
    feed([act('ended', 'b', '2')]);
    expect(ended[2]).toMatchObject({ sectionId: '2', touched: [{ ratingKey: '20' }] });
  });

  it('does not count the processing Plex does after the end of an item it already handed over as new', () => {
    const { feed, ended } = watch();
    feed([act('started', 'a', '1'), entry('1', '10', 0), act('ended', 'a', '1')]);
    feed([entry('1', '10', 5), entry('1', '99', 5), act('started', 'b', '1'), act('ended', 'b', '1')]);
    // 10 was new in scan a; its state-5 entry after a's end is not a change. 99, an older item, was updated.
    expect(ended[1].touched).toEqual([{ ratingKey: '99', type: 1, created: false }]);
  });

  it('ignores other activities and ends it cannot place; forgets running scans when the socket drops', () => {
    const { feed, ended, scans } = watch();
    feed([{ kind: 'activity', event: 'ended', uuid: 'r', type: 'library.refresh.items', sectionId: '1' }, act('ended', 'nowhere')]);
    expect(ended).toEqual([]);
    feed([act('started', 'a', '1'), entry('1', '10', 0), { kind: 'connection', connected: false, why: 'closed' }]);
    expect(scans.scanning()).toEqual(new Set());
    feed([act('ended', 'a', '1')]);
    expect(ended[0].touched.map((t) => t.ratingKey)).toEqual(['10']);
  });
});

/** A Plex that knows a few items, counting requests. */
function plexGet(items: Record<string, { type: string; files: string[] }>): { get: PlexGet; paths: string[] } {
  const paths: string[] = [];
  const get: PlexGet = async (path) => {
    paths.push(path);
    const key = /^\/library\/metadata\/([^/]+)$/.exec(path)?.[1];
    const item = key ? items[key] : undefined;
    if (!item) return { status: 404 };
    return { status: 200, body: { MediaContainer: { size: 1, Metadata: [{ ratingKey: key, type: item.type, librarySectionID: 2, Media: item.files.map((file) => ({ Part: [{ file }] })) }] } } };
  };
  return { get, paths };
}

describe('itemFiles and itemsOfScans', () => {
  it('reads Media → Part → file of an item, every part of every media', async () => {
    const { get } = plexGet({ '7': { type: 'movie', files: ['/m/A/A cd1.mkv', '/m/A/A cd2.mkv'] } });
    expect(await itemFiles(get, '7')).toEqual({ ratingKey: '7', type: 'movie', parentRatingKey: undefined, sectionId: '2', files: ['/m/A/A cd1.mkv', '/m/A/A cd2.mkv'] });
    expect(await itemFiles(get, '8')).toBe('gone');
    await expect(itemFiles(async () => ({ status: 500 }), '7')).rejects.toThrow(/answered 500/);
  });

  it('asks only for items that can hold a file, and only until every delivered file is found', async () => {
    const { get, paths } = plexGet({
      '48213': { type: 'episode', files: ['/tv/H/S02/H S02E01.mkv'] },
      '48214': { type: 'episode', files: ['/tv/H/S02/H S02E02.mkv'] },
    });
    const scan: SectionScanEnded = {
      sectionId: '2',
      uuid: 'u',
      startSeen: true,
      touched: [
        { ratingKey: '48212', type: 3, created: true },
        { ratingKey: '48213', type: 4, created: true },
        { ratingKey: '48214', type: 4, created: true },
      ],
      deleted: [],
    };
    const found = await itemsOfScans(get, [scan], new Set(['/tv/H/S02/H S02E01.mkv']), 1);
    expect([...found].map(([file, item]) => [file, item.ratingKey])).toEqual([['/tv/H/S02/H S02E01.mkv', '48213']]);
    expect(paths).toEqual(['/library/metadata/48213']);
  });
});
