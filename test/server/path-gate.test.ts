// No request can push a bad path to a media server: webhooks, the manual page, the control API, Drive and the
// CLI all pass the path gate; a refusal is a 400 (a WARN for Drive) naming the rule, and nothing is queued.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/child.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService;
let base: string;
beforeEach(async () => {
  t = await testService({ config: { SERVER_SCAN_DELAY: 0 } as never });
  base = await t.service.listen(0, '127.0.0.1');
});
afterEach(async () => t.close());

const post = (path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Runs everything queued to the end; the fake Plex then shows every folder it was asked to refresh. */
async function refreshedByPlex(): Promise<string[]> {
  t.clock.advance(10_000_000);
  await t.service.processor.drain();
  return t.plex.requests.filter((r) => /\/refresh$/.test(r.path)).map((r) => r.query.path);
}

describe('the path gate at every entry point', () => {
  it('a Sonarr series.path with ".." is refused (escapes-prefix) and Plex refreshes nothing', async () => {
    const traversal = {
      eventType: 'Rename',
      series: { id: 1, title: 'x', path: '/mnt/unionfs/Media/tv/../../../etc' },
      renamedEpisodeFiles: [{ relativePath: '../../root/.ssh/id_rsa', previousRelativePath: '../../root' }],
    };
    const res = await post(`/${SECRET}`, traversal);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.rule).toBe('escapes-prefix');
    expect(body.error).toMatch(/refused path '\/mnt\/unionfs\/Media\/tv\/\.\.\/\.\.\/\.\.\/etc.*' \(escapes-prefix\)/);
    // The old-style Rename (no file list) scans the series folder: the same refusal.
    const bare = await post(`/${SECRET}`, { eventType: 'SeriesDelete', series: { path: '/mnt/unionfs/Media/tv/../../../etc' } });
    expect(bare.status).toBe(400);
    expect(t.service.queue.count()).toBe(0);
    expect(await refreshedByPlex()).toEqual([]);
    const warn = t.logs.map((l) => JSON.parse(l)).find((l) => l.rule === 'escapes-prefix');
    expect(warn).toMatchObject({ level: 'warn', source: 'sonarr', event: 'Rename' });
  });

  it('".." that stays inside its prefix is resolved before anything is queued or sent', async () => {
    const res = await post(`/${SECRET}`, { eventType: 'Download', series: { path: '/mnt/unionfs/Media/tv/Show' }, episodeFile: { path: '/mnt/unionfs/Media/tv/Show/Extras/../Season 01/./e.mkv' } });
    expect(res.status).toBe(200);
    expect(t.service.queue.list(10).map((r) => r.folder)).toEqual(['/data/media/tv/Show/Season 01']);
    expect(await refreshedByPlex()).toEqual(['/data/media/tv/Show/Season 01']);
  });

  it('POST /api/<pass>/scan: relative, UNC, NUL, over-long and huge paths are all refused, each naming its rule', async () => {
    const cases: [string, string][] = [
      ['tv/Show/e.mkv', 'not-absolute'],
      ['\\\\attacker\\share\\x.mkv', 'unc-unmapped'],
      ['/mnt/unionfs/Media/tv/a\0b.mkv', 'control-character'],
      ['/mnt/unionfs/Media/tv/' + 'y'.repeat(5000), 'too-long'],
      ['/mnt/unionfs/Media/tv/../../../../root', 'escapes-prefix'],
    ];
    for (const [path, rule] of cases) {
      const res = await post(`/api/${SECRET}/scan`, { path });
      expect(res.status, rule).toBe(400);
      const text = await res.text();
      expect(text, rule).toContain(`(${rule})`);
      expect(JSON.parse(text).rule).toBe(rule);
      expect(text.length, rule).toBeLessThan(600);
      // A client's refusals are logged once a minute: a minute on, each rule gets its line.
      t.clock.advance(60_000);
    }
    // 5 MB of path no longer even reaches the gate: the body limit answers first, without echoing it.
    const huge = await post(`/api/${SECRET}/scan`, { path: '/mnt/unionfs/Media/tv/' + 'z'.repeat(5 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect((await huge.text()).length).toBeLessThan(100);
    expect(t.service.queue.count()).toBe(0);
    expect(await refreshedByPlex()).toEqual([]);
    // The log names each rule but holds no path whole: well under the 48 MB a 5 MB path once cost.
    expect(t.logs.join('').length).toBeLessThan(20_000);
    for (const [, rule] of cases) expect(t.logs.some((l) => l.includes(`"rule":"${rule}"`)), rule).toBe(true);
  });

  it('the manual form and a curl POST get the same refusal; the page shows it', async () => {
    const form = await fetch(`${base}/${SECRET}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: 'eventType=Manual&filepath=' + encodeURIComponent('../../etc/passwd'),
    });
    expect(form.status).toBe(400);
    expect(await form.text()).toMatch(/Refused[\s\S]*\(not-absolute\)/);
    const curl = await fetch(`${base}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'eventType=Manual&filepath=/mnt/unionfs/Media/..%2F..%2Fetc' });
    expect(curl.status).toBe(400);
    expect((await curl.json()).rule).toBe('escapes-prefix');
    expect(t.service.queue.count()).toBe(0);
  });

  it('one refused path refuses the whole webhook: nothing of it is queued', async () => {
    const res = await post(`/${SECRET}`, {
      eventType: 'Download',
      series: { path: '/mnt/unionfs/Media/tv/Show' },
      episodeFiles: [{ path: '/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv' }, { path: '/mnt/unionfs/Media/tv/Show/../../../../x/e2.mkv' }],
    });
    expect(res.status).toBe(400);
    expect(t.service.queue.count()).toBe(0);
  });

  it('Drive: a refused path is left out with a WARN naming the rule, and the rest of the batch is queued', () => {
    const admissions = t.service.intake.submitKnown(
      [
        { path: 'My Drive/Media/tv/../../../../etc/x.mkv', source: 'drive', event: 'Drive', kind: 'file' },
        { path: 'My Drive/Media/tv/Show/e.mkv', source: 'drive', event: 'Drive', kind: 'file' },
      ],
      'drive',
    );
    expect(admissions.map((a) => a.folder)).toEqual(['/data/media/tv/Show']);
    expect(t.service.queue.list(10).map((r) => r.folder)).toEqual(['/data/media/tv/Show']);
    const warn = t.logs.map((l) => JSON.parse(l)).find((l) => l.rule === 'escapes-prefix');
    expect(warn).toMatchObject({ level: 'warn', source: 'drive' });
  });

  it('CLI: scanrelay scan --directory refuses a path the gate refuses, before running anything', async () => {
    const child = runCli(['scan', '--directory', '/data/../../etc']);
    expect(await child.exited).toBe(2);
    expect(child.output()).toMatch(/refused path '\/data\/\.\.\/\.\.\/etc' \(escapes-prefix\)/);
    const relative = runCli(['scan', '--directory', 'movies/Heat']);
    expect(await relative.exited).toBe(2);
    expect(relative.output()).toMatch(/\(not-absolute\)/);
  });
});
