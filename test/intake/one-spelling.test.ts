// One spelling of a path: "Amélie" sent precomposed (NFC) and decomposed (NFD, as macOS and some SMB shares name
// files) is one queue row, the existence check finds the file in either spelling, and Plex is asked in the
// spelling the disk holds, whichever the requests used (without a file check, the one the last request used).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diskPathState } from '../../src/paths/disk.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const NFC = 'Am\u00e9lie (2001)';
const NFD = 'Ame\u0301lie (2001)';
const radarr = (movieFolder: string) =>
  JSON.stringify({
    eventType: 'Download',
    movie: { id: 7, title: 'Amélie', year: 2001, folderPath: `/data/media/Movies/${movieFolder}` },
    movieFile: { id: 8, relativePath: `${movieFolder}.mkv`, path: `/data/media/Movies/${movieFolder}/${movieFolder}.mkv` },
  });

let t: TestService;
afterEach(async () => t?.close());

async function post(body: string) {
  const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/json', 'user-agent': 'Radarr/5.0' }, payload: body });
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('one spelling of a path', () => {
  it('NFC and NFD requests for the same movie are one queue row, keyed in NFC', async () => {
    t = await testService({ config: { SERVER_MAX_FILE_CHECKS: 0 } });
    t.plex.sections.push({ key: '1', title: 'Movies', locations: ['/data/media/Movies'] });
    await post(radarr(NFC));
    const second = await post(radarr(NFD));
    expect(second.queued[0].merged).toBe(true);
    expect(t.service.queue.list().map((r) => r.folder)).toEqual([`/data/media/Movies/${NFC}`]);
  });

  it('the existence check finds a file the disk names in NFD, and Plex is asked in that spelling', async () => {
    const disk = mkdtempSync(join(tmpdir(), 'scanrelay-nfd-'));
    mkdirSync(join(disk, 'Movies', NFD), { recursive: true });
    writeFileSync(join(disk, 'Movies', NFD, `${NFD}.mkv`), 'x');
    t = await testService({
      config: { SERVER_MAX_FILE_CHECKS: 2, SERVER_SCAN_DELAY: 0, SERVER_FILE_EXIST_PATH_MAPPINGS: { [`${disk}/`]: ['/data/media/'] } },
      pathState: diskPathState,
    });
    t.plex.sections.push({ key: '1', title: 'Movies', locations: ['/data/media/Movies'] });
    await post(radarr(NFC));
    await t.service.processor.drain();
    expect(t.plex.refreshes).toEqual([{ section: '1', path: `/data/media/Movies/${NFD}` }]);
    expect(t.logs.join('')).not.toMatch(/never appeared|exhausted/);
  });

  /** A disk that holds the movie's file in one spelling only. */
  const diskWith = (movieFolder: string) => {
    const file = `/data/media/Movies/${movieFolder}/${movieFolder}.mkv`;
    const asked: string[] = [];
    const pathState = async (path: string) => {
      asked.push(path);
      return path === file ? ('file' as const) : ('missing' as const);
    };
    return { pathState, asked };
  };

  it.each([
    { disk: 'NFC', sent: 'NFD', first: NFD, last: NFC, onDisk: NFC },
    { disk: 'NFC', sent: 'NFC', first: NFC, last: NFD, onDisk: NFC },
    { disk: 'NFD', sent: 'NFD', first: NFD, last: NFC, onDisk: NFD },
    { disk: 'NFD', sent: 'NFC', first: NFC, last: NFD, onDisk: NFD },
  ])('the disk holds the file in $disk, the first request was $sent: Plex is asked in the disk\'s spelling', async ({ first, last, onDisk }) => {
    const disk = diskWith(onDisk);
    t = await testService({ config: { SERVER_MAX_FILE_CHECKS: 2, SERVER_SCAN_DELAY: 0 }, pathState: disk.pathState });
    t.plex.sections.push({ key: '1', title: 'Movies', locations: ['/data/media/Movies'] });
    await post(radarr(first));
    expect((await post(radarr(last))).queued[0].merged).toBe(true);
    await t.service.processor.drain();
    expect(disk.asked).toContain(`/data/media/Movies/${onDisk}/${onDisk}.mkv`);
    expect(t.plex.refreshes).toEqual([{ section: '1', path: `/data/media/Movies/${onDisk}` }]);
    expect(t.logs.join('')).not.toMatch(/never appeared|exhausted/);
  });

  it('without a file check, Plex is asked in the spelling the request used', async () => {
    t = await testService({ config: { SERVER_MAX_FILE_CHECKS: 0, SERVER_SCAN_DELAY: 0 } });
    t.plex.sections.push({ key: '1', title: 'Movies', locations: ['/data/media/Movies'] });
    await post(radarr(NFD));
    await t.service.processor.drain();
    expect(t.plex.refreshes).toEqual([{ section: '1', path: `/data/media/Movies/${NFD}` }]);
  });

  it('a SERVER_PATH_MAPPINGS form typed in NFD matches a path sent in NFC', async () => {
    t = await testService({ config: { SERVER_MAX_FILE_CHECKS: 0, SERVER_PATH_MAPPINGS: { '/data/media/Movies/': ['/Films/Ame\u0301lie/'] } } });
    t.plex.sections.push({ key: '1', title: 'Movies', locations: ['/data/media/Movies'] });
    const res = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ eventType: 'Manual', filepath: '/Films/Am\u00e9lie/extras' }),
    });
    expect(res.json().queued[0].mapped).toBe('/data/media/Movies/extras');
  });
});
