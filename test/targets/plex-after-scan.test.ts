// What surrounds a Plex API scan: empty-trash guards, analyze (the follow-up stage), the before/after commands
// of every target kind (argv, never a shell) and PLEX_CHECK_BEFORE_SCAN handing a silent Plex over to the processor without holding up other targets.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { auditedSink } from '../support/log-audit.js';
import { PlexApi } from '../../src/targets/plex/api.js';
import type { AfterScanSettings } from '../../src/targets/plex/after-scan.js';
import { scanAndFollow } from '../support/follow.js';
import { named } from '../support/target.js';
import { waitUntilPlexAnswers } from '../../src/targets/plex/availability.js';
import { Processor } from '../../src/processor/processor.js';
import { Queue } from '../../src/queue/store.js';
import { runScanCommand, splitCommand } from '../../src/scan-commands.js';
import { jellyfinTarget } from '../../src/targets/jellyfin.js';
import { plexScannerTarget } from '../../src/targets/plex/scanner-target.js';
import { prepareFakeScanner, scannerSettings } from '../support/scanner.js';
import { PlexTarget, type PlexTargetOptions } from '../../src/targets/plex/target.js';
import type { ScanContext } from '../../src/scan.js';
import { startFakeJellyfin } from '../fakes/jellyfin.js';
import { FakePlex } from '../fakes/plex.js';
import { LONE_SURROGATE } from '../support/surrogates.js';

let plex: FakePlex;
let clock: ManualClock;
let logs: string[];
let dir: string;
const sleep = () => new Promise<void>((r) => setImmediate(r));

beforeEach(async () => {
  plex = await new FakePlex().start();
  clock = new ManualClock();
  logs = [];
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-after-'));
});
afterEach(() => plex.stop());

function logger() {
  return createLogger({ level: 'debug', console: auditedSink((text) => logs.push(text)) });
}
const logged = (text: string) => logs.some((l) => (JSON.parse(l) as { msg: string }).msg.includes(text));

const NOTHING: Partial<AfterScanSettings> = { analyze: 'off' };
const target = (after: Partial<AfterScanSettings>, extra: Partial<PlexTargetOptions> = {}) =>
  new PlexTarget({ url: plex.url, token: plex.token, clock, timeoutMs: 2000, sleep, logger: logger(), after: { ...NOTHING, ...after }, ...extra });

const FILE = '/data/media/tv/Show/Season 01/Show - S01E01.mkv';
const FOLDER = '/data/media/tv/Show/Season 01';
const ctx = (over: Partial<ScanContext> = {}): ScanContext => ({ event: 'Download', source: 'sonarr', file: FILE, deleted: false, ...over });

describe('PLEX_EMPTY_TRASH guards', () => {
  const CONTROL = '/mnt/unionfs/mounted.bin';
  const trash = (over: Partial<AfterScanSettings> = {}) => ({
    emptyTrash: true,
    emptyTrashMaxFiles: 10,
    emptyTrashControlFiles: [CONTROL],
    emptyTrashZeroDeleted: false,
    ...over,
  });
  const present = new Set([CONTROL]);
  const exists = async (p: string) => present.has(p);
  const counts = (n: Record<string, number>) => async (section: string) => n[section] ?? 0;

  it('empties the scanned section once its scan ended, when the control files exist and few items are deleted', async () => {
    const outcome = await scanAndFollow(target(trash(), { exists, deletedCount: counts({ '2': 3 }) }), FOLDER, ctx(), clock);
    expect(plex.emptiedTrash).toEqual(['2']);
    expect(plex.finishedScans).toHaveLength(1);
    const trashAt = plex.requests.findIndex((r) => r.path.endsWith('/emptyTrash'));
    const lastPoll = plex.requests.map((r) => r.path).lastIndexOf('/activities');
    expect(trashAt).toBeGreaterThan(lastPoll);
    expect(outcome.status === 'scanned' && outcome.detail).toContain('Trash emptied in section 2.');
  });

  it('skips when a control file is missing', async () => {
    await scanAndFollow(target(trash({ emptyTrashControlFiles: [CONTROL, '/mnt/other/mounted.bin'] }), { exists, deletedCount: counts({ '2': 3 }) }), FOLDER, ctx(), clock);
    expect(plex.emptiedTrash).toEqual([]);
    expect(logged("Skip emptying of trash as control file is not present: '/mnt/other/mounted.bin'")).toBe(true);
  });

  it('skips, with a clear log line, without the database count of deleted items', async () => {
    await scanAndFollow(target(trash(), { exists }), FOLDER, ctx(), clock);
    expect(plex.emptiedTrash).toEqual([]);
    expect(logged('PLEX_EMPTY_TRASH needs the number of deleted items')).toBe(true);
  });

  it('skips when more items than PLEX_EMPTY_TRASH_MAX_FILES are deleted, counted per section', async () => {
    await plex.stop();
    plex = await new FakePlex({
      sections: [
        { key: '1', title: 'Movies', locations: ['/data/media/movies'] },
        { key: '5', title: 'Movies (all)', locations: ['/data/media/movies'] },
      ],
    }).start();
    await scanAndFollow(target(trash(), { exists, deletedCount: counts({ '1': 11, '5': 2 }) }), '/data/media/movies/Heat (1995)', ctx({ file: '/data/media/movies/Heat (1995)/Heat.mkv' }), clock);
    expect(plex.emptiedTrash).toEqual(['5']);
    expect(logged('11 items are marked deleted, more than PLEX_EMPTY_TRASH_MAX_FILES (10)')).toBe(true);
  });

  it('with nothing deleted, empties only for an Upgrade or with PLEX_EMPTY_TRASH_ZERO_DELETED', async () => {
    const deps = { exists, deletedCount: counts({}) };
    await scanAndFollow(target(trash(), deps), FOLDER, ctx(), clock);
    expect(plex.emptiedTrash).toEqual([]);
    await scanAndFollow(target(trash(), deps), FOLDER, ctx({ event: 'Upgrade' }), clock);
    expect(plex.emptiedTrash).toEqual(['2']);
    await scanAndFollow(target(trash({ emptyTrashZeroDeleted: true }), deps), FOLDER, ctx(), clock);
    expect(plex.emptiedTrash).toEqual(['2', '2']);
  });

  it('PLEX_EMPTY_TRASH_MAX_FILES 0 never empties (and leaves a folder scan on the fast path)', async () => {
    await scanAndFollow(target(trash({ emptyTrashMaxFiles: 0 }), { exists, deletedCount: counts({ '2': 1 }) }), FOLDER, ctx({ file: undefined }), clock);
    expect(plex.emptiedTrash).toEqual([]);
    expect(plex.requests.filter((r) => r.path === '/activities')).toHaveLength(0);
  });

  it('follows a folder-only scan to its end before emptying, and never empties after a timed-out scan', async () => {
    await scanAndFollow(target(trash(), { exists, deletedCount: counts({ '2': 1 }) }), FOLDER, ctx({ file: undefined, event: 'Rename' }), clock);
    expect(plex.emptiedTrash).toEqual(['2']);
    plex.scanPolls = Infinity;
    await scanAndFollow(target(trash(), { exists, deletedCount: counts({ '2': 1 }), confirmTimeoutMs: 10_000 }), FOLDER, ctx({ file: undefined }), clock);
    expect(plex.emptiedTrash).toEqual(['2']);
  });

  /** A target whose pauses are the ManualClock's (the default), with the simulated time of each emptyTrash call. */
  const clocked = (over: Partial<AfterScanSettings> = {}) => {
    const trashAt: number[] = [];
    const stamping: typeof fetch = (input, init) => {
      if (new URL(String(input)).pathname.endsWith('/emptyTrash')) trashAt.push(clock.now());
      return fetch(input, init);
    };
    const t = target(trash(over), { exists, deletedCount: counts({ '2': 1 }), sleep: undefined, fetch: stamping });
    return { t, trashAt };
  };

  it('retries a refused emptyTrash 5 times, 10 s of clock time apart, then gives up with what to check', async () => {
    plex.scanPolls = 1;
    plex.failRoute('PUT', /\/emptyTrash$/, 500);
    const { t, trashAt } = clocked();
    const started = performance.now();
    const outcome = await scanAndFollow(t, FOLDER, ctx({ file: undefined, event: 'Rename' }), clock);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(plex.emptyTrashCalls.map((c) => c.section)).toEqual(['2', '2', '2', '2', '2']);
    expect(trashAt.slice(1).map((at, i) => at - trashAt[i])).toEqual([10_000, 10_000, 10_000, 10_000]);
    expect(clock.now() - trashAt[0]).toBe(40_000); // no pause after the last try
    expect(outcome).toMatchObject({ status: 'scanned' });
    expect(outcome.status === 'scanned' && outcome.detail).not.toContain('Trash emptied');
    for (let n = 1; n <= 5; n++) expect(logged(`Emptying trash in section 2 TV Shows failed (try ${n} of 5)`)).toBe(true);
    expect(logged('answered 500 Internal Server Error to PUT /library/sections/2/emptyTrash; trying again in 10 s.')).toBe(true);
    const final = logs.map((l) => JSON.parse(l) as { level: number | string; msg: string }).find((l) => l.msg.startsWith('Gave up emptying trash'));
    expect(final?.msg).toMatch(/^Gave up emptying trash in section 2 TV Shows after 5 tries \(last: .*500.*\)\. Check that Plex at http:\/\/127\.0\.0\.1:\d+ is up, that section 2 still exists, and that the token is the server owner's/);
    expect(logs.join('\n')).not.toContain(plex.token);
  });

  it('stops retrying once emptyTrash succeeds (third try)', async () => {
    plex.scanPolls = 1;
    plex.failRoute('PUT', /\/emptyTrash$/, 503, 2);
    const { t, trashAt } = clocked();
    const outcome = await scanAndFollow(t, FOLDER, ctx({ file: undefined, event: 'Rename' }), clock);
    expect(plex.emptyTrashCalls).toHaveLength(3);
    expect(trashAt.slice(1).map((at, i) => at - trashAt[i])).toEqual([10_000, 10_000]);
    expect(clock.now()).toBe(trashAt[2]); // nothing waited after the success
    expect(outcome.status === 'scanned' && outcome.detail).toContain('Trash emptied in section 2.');
    expect(logged('failed (try 2 of 5)')).toBe(true);
    expect(logged('failed (try 3 of 5)')).toBe(false);
    expect(logged('Gave up emptying trash')).toBe(false);
    expect(logged('Emptied trash in section 2 TV Shows (1 deleted item(s)).')).toBe(true);
  });
});

describe('PLEX_ANALYZE_TYPE through the API', () => {
  it('analyzes the season (PLEX_ANALYZE_DIRECTORY) or the item once the file is confirmed', async () => {
    plex.onDisk.add(FILE);
    const outcome = await scanAndFollow(target({ analyze: 'basic', analyzeDirectory: true }), FOLDER, ctx(), clock);
    expect(outcome).toMatchObject({ status: 'scanned', followed: { state: 'confirmed' } });
    expect(outcome.status === 'scanned' && outcome.detail).toContain('Basic analyze started');
    const item = plex.library.get(FILE)!;
    expect(plex.analyzed).toEqual([item.parentRatingKey]);
    await scanAndFollow(target({ analyze: 'deep', analyzeDirectory: false }), FOLDER, ctx(), clock);
    expect(plex.analyzed).toEqual([item.parentRatingKey, item.ratingKey]);
  });

  const EPISODES = ['E01', 'E02', 'E03'].map((e) => `${FOLDER}/Show - S01${e}.mkv`);
  const analyzeRequests = () => plex.requests.filter((r) => r.path.endsWith('/analyze'));

  it('basic with PLEX_ANALYZE_DIRECTORY sends exactly one analyze, for the season', async () => {
    for (const f of EPISODES) plex.onDisk.add(f);
    const outcome = await scanAndFollow(target({ analyze: 'basic', analyzeDirectory: true }), FOLDER, ctx({ file: EPISODES[0] }), clock);
    const season = plex.library.get(EPISODES[0])!.parentRatingKey!;
    expect(analyzeRequests().map((r) => [r.method, r.path])).toEqual([['PUT', `/library/metadata/${season}/analyze`]]);
    expect(plex.requests.some((r) => r.path.endsWith('/children'))).toBe(false);
    expect(outcome.status === 'scanned' && outcome.detail).toContain(`Basic analyze started (item ${season}).`);
    expect(logged(`item(s) ${season} (its parent, PLEX_ANALYZE_DIRECTORY)`)).toBe(true);
  });

  it('deep with PLEX_ANALYZE_DIRECTORY analyzes every episode of the season and not the season; says once that the API has no deep call', async () => {
    for (const f of EPISODES) plex.onDisk.add(f);
    const t = target({ analyze: 'deep', analyzeDirectory: true });
    const outcome = await scanAndFollow(t, FOLDER, ctx({ file: EPISODES[1] }), clock);
    const keys = EPISODES.map((f) => plex.library.get(f)!.ratingKey);
    const season = plex.library.get(EPISODES[0])!.parentRatingKey!;
    expect(new Set(keys).size).toBe(3);
    expect(plex.requests.filter((r) => r.path.endsWith('/children')).map((r) => [r.method, r.path])).toEqual([['GET', `/library/metadata/${season}/children`]]);
    expect(analyzeRequests().every((r) => r.method === 'PUT')).toBe(true);
    expect([...plex.analyzed].sort()).toEqual([...keys].sort());
    expect(plex.analyzed).not.toContain(season);
    expect(outcome.status === 'scanned' && outcome.detail).toContain('Deep analyze started (3 items).');
    expect(logged(`every child of its parent ${season}, PLEX_ANALYZE_DIRECTORY`)).toBe(true);
    // A second scan on the same target analyzes again but does not repeat the explanation.
    await scanAndFollow(t, FOLDER, ctx({ file: EPISODES[2] }), clock);
    expect(plex.analyzed).toHaveLength(6);
    const notes = logs.map((l) => JSON.parse(l) as { level: number | string; msg: string }).filter((l) => l.msg.includes("Plex's HTTP API has no deep-analysis call"));
    expect(notes).toHaveLength(1);
    expect(notes[0].msg).toContain("each item gets Plex's analyze");
    expect([30, 'info']).toContain(notes[0].level);
  });

  it('deep without PLEX_ANALYZE_DIRECTORY analyzes the item alone; a movie (no parent) is itself even with it', async () => {
    for (const f of EPISODES) plex.onDisk.add(f);
    await scanAndFollow(target({ analyze: 'deep', analyzeDirectory: false }), FOLDER, ctx({ file: EPISODES[0] }), clock);
    expect(plex.analyzed).toEqual([plex.library.get(EPISODES[0])!.ratingKey]);
    expect(plex.requests.some((r) => r.path.endsWith('/children'))).toBe(false);
    const movie = plex.addToLibrary('/data/media/movies/Heat (1995)/Heat.mkv');
    await scanAndFollow(target({ analyze: 'deep', analyzeDirectory: true }), '/data/media/movies/Heat (1995)', ctx({ file: movie.file }), clock);
    expect(plex.analyzed.at(-1)).toBe(movie.ratingKey);
    expect(plex.requests.some((r) => r.path.endsWith('/children'))).toBe(false);
  });

  it('a failed analyze call (500) is logged and does not fail the scan; the other episodes are still analyzed', async () => {
    for (const f of EPISODES) plex.onDisk.add(f);
    plex.failRoute('PUT', /\/analyze$/, 500);
    const outcome = await scanAndFollow(target({ analyze: 'basic', analyzeDirectory: false }), FOLDER, ctx({ file: EPISODES[0] }), clock);
    expect(outcome).toMatchObject({ status: 'scanned', followed: { state: 'confirmed' } });
    expect(outcome.status === 'scanned' && outcome.detail).not.toContain('analyze started');
    const key = plex.library.get(EPISODES[0])!.ratingKey;
    expect(logged(`Analyze of item ${key} (for '${EPISODES[0]}') failed: Plex at ${plex.url} answered 500`)).toBe(true);

    plex.routeFailures.length = 0;
    plex.failRoute('PUT', /\/analyze$/, 500, 1);
    const deep = await scanAndFollow(target({ analyze: 'deep', analyzeDirectory: true }), FOLDER, ctx({ file: EPISODES[0] }), clock);
    expect(deep).toMatchObject({ status: 'scanned', followed: { state: 'confirmed' } });
    expect(deep.status === 'scanned' && deep.detail).toContain('Deep analyze started (2 items).');
    expect(logged('; 1 of 3 failed)')).toBe(true);
  });

  it('deep falls back to the item alone when the parent\'s children cannot be listed', async () => {
    plex.onDisk.add(FILE);
    plex.failRoute('GET', /\/children$/, 500);
    await scanAndFollow(target({ analyze: 'deep', analyzeDirectory: true }), FOLDER, ctx(), clock);
    expect(plex.analyzed).toEqual([plex.library.get(FILE)!.ratingKey]);
    expect(logged('analyzing the item alone')).toBe(true);
  });

  it('skips with a log line when Plex does not say which item the file is (no section-wide analyze)', async () => {
    plex.onDisk.add(FILE);
    plex.fileLookup = 'empty';
    await scanAndFollow(target({ analyze: 'basic' }), FOLDER, ctx(), clock);
    expect(plex.analyzed).toEqual([]);
    expect(plex.requests.some((r) => r.path.endsWith('/analyze'))).toBe(false);
    expect(logged('Skip analyze of')).toBe(true);
  });
});

describe('RUN_COMMAND_BEFORE_SCAN / RUN_COMMAND_AFTER_SCAN', () => {
  it('splits a command like a shell would, without expanding anything', () => {
    expect(splitCommand(`a "b c" 'd "e"' f\\ g "h\\"i" '' $(x) ;`)).toEqual(['a', 'b c', 'd "e"', 'f g', 'h"i', '', '$(x)', ';']);
    expect(() => splitCommand(`a "b`)).toThrow(/unterminated/);
  });

  /** A processor over Plex (API), Jellyfin and the Plex scanner route, running both commands. */
  async function everyKind(commandBefore: string, commandAfter: string) {
    prepareFakeScanner();
    const jellyfin = await startFakeJellyfin();
    const queue = new Queue(join(dir, 'queue.db'), clock, { delayMs: 0 });
    const scannerLog = join(dir, 'scanner.jsonl');
    process.env.FAKE_SCANNER_LOG = scannerLog;
    const targets = [
      named(target({}), { name: 'plex' }),
      named(jellyfinTarget({ scanMethod: 'media-updated', name: 'jellyfin', url: jellyfin.url, token: 'jellyfin-token-1234', clock, timeoutMs: 2000 }), { name: 'jellyfin' }),
      named(plexScannerTarget({ name: 'scanner', settings: scannerSettings(), sections: async () => [{ id: 2, title: 'TV Shows', locations: ['/data/media/tv'] }] }), { name: 'scanner' }),
    ];
    const p = new Processor({
      queue,
      targets,
      clock,
      logger: logger(),
      settings: { fileExistMappings: {}, maxFileChecks: 0, fileCheckDelayMs: 0, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 300_000, commandBefore, commandAfter },
    });
    return {
      p,
      queue,
      async run(folder: string, file?: string, event = 'Download') {
        queue.enqueue({ folder, priority: 0, source: 'sonarr', event, fileHint: file, deleted: false });
        p.followUps.start();
        await p.drain();
        await p.followUps.idle();
      },
      async close() {
        await p.stop();
        queue.close();
        await jellyfin.close();
        delete process.env.FAKE_SCANNER_LOG;
      },
    };
  }

  it('runs both commands for every target kind as argv with the path in the environment: spaces, quotes and $(...) arrive intact, nothing executes', async () => {
    const marker = join(dir, 'pwned');
    const folder = `/data/media/tv/Bobby "Tables" O'Brien $(touch ${marker}); \`touch ${marker}\`/Season 01`;
    const file = `${folder}/E01 $(touch ${marker}) 'x'.mkv`;
    const script = join(dir, 'record.mjs');
    const out = join(dir, 'calls.jsonl');
    writeFileSync(
      script,
      `import { appendFileSync } from 'node:fs';
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SCANRELAY_')));
appendFileSync(process.argv[2], JSON.stringify({ argv: process.argv.slice(2), env }) + '\\n');`,
    );
    const command = (label: string) => `"${process.execPath}" '${script}' "${out}" --label '${label}'`;
    plex.onDisk.add(file);
    const kinds = await everyKind(command('before scan'), command('after scan'));
    try {
      await kinds.run(folder, file);
      expect(kinds.queue.history().map((h) => [h.target, h.outcome]).sort()).toEqual([
        ['jellyfin', 'scanned'],
        ['plex', 'confirmed'],
        ['scanner', 'scanned'],
      ]);
    } finally {
      await kinds.close();
    }
    const calls = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv: string[]; env: Record<string, string> });
    const common = { SCANRELAY_PATH: file, SCANRELAY_FOLDER: folder, SCANRELAY_EVENT: 'Download' };
    // The ids of the libraries holding the folder, for every kind that lists libraries (Jellyfin's "Shows" here).
    const shows = '8d2f6a4c1e7b49d3a5c0e9f2b6d1a8c4';
    for (const [name, section] of [['plex', '2'], ['jellyfin', shows], ['scanner', '2']]) {
      expect(calls).toContainEqual({ argv: [out, '--label', 'before scan'], env: { ...common, SCANRELAY_SECTION: section, SCANRELAY_TARGET: name } });
    }
    expect(calls).toContainEqual({ argv: [out, '--label', 'after scan'], env: { ...common, SCANRELAY_SECTION: '2', SCANRELAY_TARGET: 'plex', SCANRELAY_CONFIRMATION: 'confirmed' } });
    expect(calls).toContainEqual({ argv: [out, '--label', 'after scan'], env: { ...common, SCANRELAY_SECTION: shows, SCANRELAY_TARGET: 'jellyfin', SCANRELAY_CONFIRMATION: 'scanned' } });
    expect(calls).toContainEqual({ argv: [out, '--label', 'after scan'], env: { ...common, SCANRELAY_SECTION: '2', SCANRELAY_TARGET: 'scanner', SCANRELAY_CONFIRMATION: 'scanned' } });
    expect(calls).toHaveLength(6);
    expect(existsSync(marker)).toBe(false);
  });

  it('the documented way to get shell features (sh -c, path from the environment) works', async () => {
    const viaShell = `sh -c 'printf "%s" "$SCANRELAY_TARGET " >> "$0"' '${join(dir, 'via-shell.txt')}'`;
    const kinds = await everyKind(viaShell, '');
    try {
      await kinds.run(FOLDER);
    } finally {
      await kinds.close();
    }
    expect(readFileSync(join(dir, 'via-shell.txt'), 'utf8').trim().split(' ').sort()).toEqual(['jellyfin', 'plex', 'scanner']);
  });

  it('logs a failing command with its exit status and delivers anyway; warns about shell syntax it will not interpret', async () => {
    const kinds = await everyKind(`"${process.execPath}" -e "process.exit(3)" | tee log`, '/nonexistent/hook.sh');
    try {
      await kinds.run(FOLDER);
      expect(kinds.queue.history().map((h) => h.outcome)).toEqual(['scanned', 'scanned', 'scanned']);
    } finally {
      await kinds.close();
    }
    expect(plex.refreshes).toHaveLength(1);
    expect(logged('External command (RUN_COMMAND_BEFORE_SCAN) failed: exit status 3.')).toBe(true);
    expect(logged("contains '|', which is passed to")).toBe(true);
    expect(logged('External command (RUN_COMMAND_AFTER_SCAN) failed: ENOENT')).toBe(true);
    expect(logs.join('\n')).not.toContain(plex.token);
  });

  it("a failing command's output is logged by its last 2,000 characters, which start on a character", async () => {
    // 1,500 emoji and an x: the last 2,000 UTF-16 units start with the second half of an emoji.
    const print = `'process.stdout.write(String.fromCodePoint(0x1f600).repeat(1500) + "x"); process.exit(3)'`;
    const env = { SCANRELAY_PATH: FILE, SCANRELAY_FOLDER: FOLDER, SCANRELAY_SECTION: '2', SCANRELAY_EVENT: 'Download', SCANRELAY_TARGET: 'plex' };
    await runScanCommand('before', `"${process.execPath}" -e ${print}`, env, logger());
    const line = logs.map((l) => JSON.parse(l) as { msg: string; output?: string }).find((l) => l.msg.includes('failed: exit status 3'))!;
    expect(line.output).not.toMatch(LONE_SURROGATE);
    expect(line.output).toBe(`${'😀'.repeat(999)}x`);
  });
});

describe('PLEX_CHECK_BEFORE_SCAN', () => {
  it('asks with backoff within a bounded budget, then hands over as "target down"', async () => {
    plex.failure = 'reset';
    const sleeps: number[] = [];
    const t = target({}, { checkBeforeScan: true, checkBudgetMs: 15_000, sleep: async (ms) => void sleeps.push(ms) });
    const outcome = await t.scan(FOLDER, ctx());
    expect(outcome).toMatchObject({ status: 'retry', targetDown: true, error: expect.stringMatching(/^PLEX_CHECK_BEFORE_SCAN: .* \(asked 6 time\(s\)\)$/) });
    expect(sleeps).toEqual([500, 1000, 2000, 4000, 4000]);
    expect(plex.refreshes).toEqual([]);
  });

  it('a refused token ends the wait at once', async () => {
    plex.token = 'other';
    const api = new PlexApi({ url: plex.url, token: 'wrong-token' });
    expect(await waitUntilPlexAnswers(api, { clock, sleep: async () => {} })).toMatchObject({ ok: false, attempts: 1, status: 401 });
  });

  it('a silent Plex delays no other target, and gets its scan once it answers', async () => {
    const jellyfin = await startFakeJellyfin();
    const queue = new Queue(join(dir, 'queue.db'), clock, { delayMs: 0 });
    const plexTarget = new PlexTarget({
      url: plex.url,
      token: plex.token,
      clock,
      timeoutMs: 2000,
      checkBeforeScan: true,
      // Each pause moves simulated time: the whole check budget passes without a real wait.
      sleep: async (ms) => clock.advance(ms),
    });
    const jf = jellyfinTarget({ scanMethod: 'media-updated', name: 'jellyfin', url: jellyfin.url, token: 'jellyfin-token-1234', clock, timeoutMs: 2000 });
    const p = new Processor({
      queue,
      targets: [named(plexTarget, { name: 'plex' }), named(jf, { name: 'jellyfin' })],
      clock,
      logger: silentLogger,
      random: () => 1,
      settings: { fileExistMappings: {}, maxFileChecks: 0, fileCheckDelayMs: 0, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 300_000 },
    });
    try {
      plex.failure = 'reset';
      queue.enqueue({ folder: FOLDER, priority: 0, source: 'sonarr', event: 'Download', deleted: false });
      const started = performance.now();
      await p.drain();
      expect(performance.now() - started).toBeLessThan(2000);
      expect(jellyfin.updates()).toEqual([{ Path: FOLDER, UpdateType: 'Modified' }]);
      expect(p.health().find((h) => h.name === 'plex')).toMatchObject({ up: false, lastError: expect.stringContaining('PLEX_CHECK_BEFORE_SCAN') });
      expect(queue.deliveries(queue.get(FOLDER)!.id)).toEqual(
        expect.arrayContaining([expect.objectContaining({ target: 'plex', state: 'pending' }), expect.objectContaining({ target: 'jellyfin', state: 'scanned' })]),
      );
      plex.failure = undefined;
      clock.advance(60_000);
      await p.drain();
      expect(plex.refreshes).toEqual([{ section: '2', path: FOLDER }]);
      expect(queue.count()).toBe(0);
      expect(queue.history().map((h) => [h.target, h.outcome]).sort()).toEqual([
        ['jellyfin', 'scanned'],
        ['plex', 'scanned'],
      ]);
    } finally {
      queue.close();
      await jellyfin.close();
    }
  });
});
