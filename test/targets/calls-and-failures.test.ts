// The command, Audiobookshelf, Tdarr, Sonarr/Radarr and relay targets against their fakes: the calls, what each
// failure becomes (retry, target down, unmatched), and that no token reaches an error message.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { arrTarget } from '../../src/targets/arr.js';
import { audiobookshelfTarget } from '../../src/targets/audiobookshelf.js';
import { commandTarget } from '../../src/targets/command.js';
import { relayTarget } from '../../src/targets/relay.js';
import { tdarrTarget } from '../../src/targets/tdarr.js';
import type { ScanContext } from '../../src/scan.js';
import { commands, startFakeArr } from '../fakes/arr.js';
import { ABS_TOKEN, startFakeAudiobookshelf } from '../fakes/audiobookshelf.js';
import type { Recorder } from '../fakes/recorder.js';
import { relayed, startFakeRelay } from '../fakes/relay.js';
import { startFakeTdarr } from '../fakes/tdarr.js';
import { repoRoot } from '../support/fixtures.js';
import { LONE_SURROGATE } from '../support/surrogates.js';

const ctx = (file?: string, deleted = false): ScanContext => ({ event: 'Download', source: 'sonarr', file, deleted });
const open: Recorder[] = [];
afterEach(async () => Promise.all(open.splice(0).map((f) => f.close())));
const track = <T extends Recorder>(f: T) => (open.push(f), f);

describe('command target', () => {
  const script = join(repoRoot, 'test/fakes/command-target.mjs');
  const out = () => join(mkdtempSync(join(tmpdir(), 'scanrelay-cmd-')), 'calls.jsonl');

  it('runs the program with the folder, file, event and deletion in its environment, without a shell', async () => {
    const log = out();
    const target = commandTarget({ name: 'hook', argv: [process.execPath, script, log, '0', '$(touch /tmp/never)'] });
    expect(await target.scan('/data/tv/Show; rm -rf /', ctx(undefined, true))).toEqual({ status: 'scanned', detail: `'${process.execPath}' exited 0` });
    expect(JSON.parse(readFileSync(log, 'utf8'))).toMatchObject({ SCANRELAY_FOLDER: '/data/tv/Show; rm -rf /', SCANRELAY_FILE: '', SCANRELAY_DELETED: '1' });
    expect(await target.available()).toEqual({ ok: true });
  });

  it('a non-zero exit is retried with its last stderr line; a missing program marks the target down', async () => {
    const failing = commandTarget({ name: 'hook', argv: [process.execPath, script, out(), '3', 'library locked'] });
    expect(await failing.scan('/x', ctx())).toEqual({ status: 'retry', error: `command target 'hook': '${process.execPath}' exited 3: library locked`, targetDown: false });
    const missing = commandTarget({ name: 'hook', argv: ['/nonexistent/notify'] });
    expect(await missing.scan('/x', ctx())).toMatchObject({ status: 'retry', targetDown: true, error: expect.stringContaining('check COMMAND') });
    expect(await missing.available()).toMatchObject({ ok: false });
    expect(await commandTarget({ name: 'h', argv: ['node'] }).available()).toEqual({ ok: true });
  });

  it('the stderr line in the error is cut to 200 characters on a character, never half an emoji', async () => {
    const failing = commandTarget({ name: 'hook', argv: [process.execPath, script, out(), '3', `${'x'.repeat(199)}${'😀'.repeat(20)}`] });
    const outcome = await failing.scan('/x', ctx());
    const error = outcome.status === 'retry' ? outcome.error : '';
    expect(error).not.toMatch(LONE_SURROGATE);
    expect(error).toBe(`command target 'hook': '${process.execPath}' exited 3: ${'x'.repeat(199)}`);
  });

  it('a program over TIMEOUT is stopped and retried', async () => {
    const slow = commandTarget({ name: 'hook', argv: [process.execPath, '-e', 'setTimeout(() => {}, 10000)'], timeoutMs: 200 });
    expect(await slow.scan('/x', ctx())).toMatchObject({ status: 'retry', error: expect.stringContaining('stopped after 0.2 s (TIMEOUT)') });
  });
});

describe('audiobookshelf target', () => {
  it('tells the watcher of the library holding the folder: the file when known, unlink for a deletion', async () => {
    const abs = track(await startFakeAudiobookshelf());
    const target = audiobookshelfTarget({ name: 'abs', url: abs.url, token: ABS_TOKEN, clock: new ManualClock() });
    expect(await target.scan('/audiobooks/Le Guin/Earthsea', ctx('/audiobooks/Le Guin/Earthsea/01.m4b'))).toEqual({ status: 'scanned', detail: 'Audiobooks', sections: ['lib-audio'] });
    expect(await target.scan('/audiobooks/Le Guin/Old', ctx(undefined, true))).toMatchObject({ status: 'scanned' });
    expect(abs.requests.filter((r) => r.method === 'POST').map((r) => r.body)).toEqual([
      { libraryId: 'lib-audio', path: '/audiobooks/Le Guin/Earthsea/01.m4b', type: 'add' },
      { libraryId: 'lib-audio', path: '/audiobooks/Le Guin/Old', type: 'unlink' },
    ]);
    // The library list is read once and reused.
    expect(abs.requests.filter((r) => r.path === '/api/libraries')).toHaveLength(1);
    expect(await target.scan('/podcasts/x', ctx())).toMatchObject({ status: 'unmatched', detail: expect.stringContaining('known folders: /audiobooks') });
    expect(await target.available()).toEqual({ ok: true });
  });

  it('a refused token is told apart (the processor probes) without printing the token; an unreachable server is down', async () => {
    const abs = track(await startFakeAudiobookshelf());
    const wrong = audiobookshelfTarget({ name: 'abs', url: abs.url, token: 'wrong-token-123', clock: new ManualClock() });
    const outcome = await wrong.scan('/audiobooks/x', ctx());
    expect(outcome).toMatchObject({ status: 'retry', targetDown: false, tokenRefused: true, error: expect.stringContaining('check TOKEN') });
    expect(JSON.stringify(outcome)).not.toContain('wrong-token-123');
    await abs.close();
    open.length = 0;
    expect(await wrong.scan('/audiobooks/x', ctx())).toMatchObject({ status: 'retry', targetDown: true, error: expect.stringContaining('did not answer') });
  });
});

describe('tdarr target', () => {
  it('asks Tdarr to scan the file into its library; deletions are not sent; 5xx and 4xx concern the folder, not down', async () => {
    const tdarr = track(await startFakeTdarr());
    const target = tdarrTarget({ name: 'tdarr', url: tdarr.url, token: '', libraryId: 'L1' });
    expect(await target.scan('/media/tv/S/Season 1', ctx('/media/tv/S/Season 1/e.mkv'))).toEqual({ status: 'scanned', detail: 'library L1' });
    expect(tdarr.requests[0].headers['x-api-key']).toBeUndefined();
    expect(await target.scan('/media/tv/S/Season 1', ctx(undefined, true))).toMatchObject({ status: 'unmatched' });
    expect(tdarr.requests).toHaveLength(1);
    tdarr.fail(502);
    expect(await target.scan('/media/x', ctx())).toMatchObject({ status: 'retry', targetDown: false, error: expect.stringContaining('answered 502') });
    tdarr.fail(400);
    expect(await target.scan('/media/x', ctx())).toMatchObject({ status: 'retry', targetDown: false, error: expect.stringContaining('answered 400') });
  });
});

describe('sonarr and radarr targets', () => {
  it('rescan the series owning the folder (the deepest match), by its id', async () => {
    const sonarr = track(await startFakeArr('sonarr', 'key-1234', [{ id: 1, title: 'Root', path: '/tv' }, { id: 9, title: 'Andor', path: '/tv/Andor' }]));
    const target = arrTarget('sonarr', { name: 'sonarr', url: sonarr.url, token: 'key-1234', clock: new ManualClock() });
    expect(await target.scan('/tv/Andor/Season 1', ctx())).toMatchObject({ status: 'scanned', detail: 'RescanSeries Andor' });
    expect(commands(sonarr)).toEqual([{ name: 'RescanSeries', seriesId: 9 }]);
    expect(await target.scan('/movies/Heat', ctx())).toMatchObject({ status: 'unmatched' });
    expect(await target.available()).toEqual({ ok: true });
  });

  it('a series added since the list was read is found after a miss (at most every 30 s)', async () => {
    const items = [{ id: 1, title: 'A', path: '/tv/A' }];
    const sonarr = track(await startFakeArr('sonarr', 'key-1234', items));
    const clock = new ManualClock();
    const target = arrTarget('sonarr', { name: 'sonarr', url: sonarr.url, token: 'key-1234', clock });
    await target.scan('/tv/A', ctx());
    items.push({ id: 2, title: 'B', path: '/tv/B' });
    expect(await target.scan('/tv/B/S1', ctx())).toMatchObject({ status: 'unmatched' });
    clock.advance(61_000);
    expect(await target.scan('/tv/B/S1', ctx())).toMatchObject({ status: 'scanned', detail: 'RescanSeries B' });
  });

  it('radarr: RescanMovie with movieId; a wrong API key is a refused token', async () => {
    const radarr = track(await startFakeArr('radarr', 'key-5678', [{ id: 4, title: 'Heat', path: '/movies/Heat (1995)' }]));
    expect(await arrTarget('radarr', { name: 'r', url: radarr.url, token: 'key-5678' }).scan('/movies/Heat (1995)', ctx())).toMatchObject({ status: 'scanned' });
    expect(commands(radarr)).toEqual([{ name: 'RescanMovie', movieId: 4 }]);
    const refused = await arrTarget('radarr', { name: 'r', url: radarr.url, token: 'nope-nope' }).scan('/movies/Heat (1995)', ctx());
    expect(refused).toMatchObject({ status: 'retry', targetDown: false, tokenRefused: true });
    expect(JSON.stringify(refused)).not.toContain('nope-nope');
  });
});

describe('relay target', () => {
  it("posts the folder to the other instance's manual trigger with Basic auth; HEAD probes it", async () => {
    const relay = track(await startFakeRelay('u', 'p-secret-9'));
    const target = relayTarget({ name: 'edge', url: relay.url, user: 'u', password: 'p-secret-9' });
    expect(await target.scan('/media/tv/Show/Season 1/', ctx('/media/tv/Show/Season 1/e.mkv'))).toMatchObject({ status: 'scanned' });
    expect(relayed(relay)).toEqual(['/media/tv/Show/Season 1']);
    expect(await target.available()).toEqual({ ok: true });
    const wrong = await relayTarget({ name: 'edge', url: relay.url, user: 'u', password: 'bad-pass' }).scan('/m', ctx());
    expect(wrong).toMatchObject({ status: 'retry', targetDown: false, tokenRefused: true, error: expect.stringContaining('check USER and PASSWORD') });
  });

  it('chains into a real scanrelay: its /triggers/manual queues the folder', async () => {
    const { testService } = await import('../support/service.js');
    const other = await testService({ config: { AUTOSCAN: { ENABLED: true, USER: 'chain', PASSWORD: 'chain-pass-1', TRIGGERS: [], MANUAL_REWRITE: {}, A_TRAIN_REWRITE: {}, A_TRAIN_DRIVES: {} } } });
    try {
      const url = await other.service.listen(0, '127.0.0.1');
      const target = relayTarget({ name: 'next', url, user: 'chain', password: 'chain-pass-1' });
      expect(await target.available()).toEqual({ ok: true });
      expect(await target.scan('/data/media/tv/Show/Season 2', ctx())).toMatchObject({ status: 'scanned' });
      expect(other.service.queue.get('/data/media/tv/Show/Season 2')).toMatchObject({ source: 'manual' });
    } finally {
      await other.close();
    }
  });
});
