// The table from config to targets applies SCAN_CONCURRENCY, SCAN_PAUSE, PATH_MAPPINGS and EXCLUDE to every TYPE
// alike: for each kind of the table, a target built from a TARGETS entry is shown to obey each key, and the path
// doctor answers for it through its capabilities.
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import { targetSchema, type Config } from '../../src/config/schema.js';
import { explainPath } from '../../src/doctor/explain.js';
import { silentLogger } from '../../src/log/logger.js';
import { Processor } from '../../src/processor/processor.js';
import { Queue } from '../../src/queue/store.js';
import type { ScanContext, Target } from '../../src/scan.js';
import { buildTargets } from '../../src/targets/build.js';
import { TARGET_TYPES, kindOf } from '../../src/targets/kinds.js';
import { repoRoot } from '../support/fixtures.js';
import { fakeScanner, prepareFakeScanner } from '../support/scanner.js';

const dir = mkdtempSync(join(tmpdir(), 'scanrelay-table-'));
const commandLog = join(dir, 'command.jsonl');
const scannerLog = join(dir, 'scanner.jsonl');
const ctx: ScanContext = { event: 'Download', source: 'sonarr', deleted: false };

/** An entry of the type with only what its kind requires (a dummy of each), plus `keys`. */
function entry(type: string, keys: Record<string, unknown> = {}) {
  const dummy = (key: string): unknown =>
    key === 'COMMAND' ? [process.execPath, join(repoRoot, 'test/fakes/command-target.mjs'), commandLog] : key === 'URL' ? 'http://media.invalid:8000' : `${key.toLowerCase()}-1234`;
  const required = Object.keys(kindOf(type)!.requires);
  return targetSchema().parse({ NAME: `${type}-1`, TYPE: type, URL: 'http://media.invalid:8000', TOKEN: 'token-1234', ...Object.fromEntries(required.map((k) => [k, dummy(k)])), ...keys });
}

/** Every server answers: its library list holds /srv/media (in each kind's shape), anything else is accepted. */
function server() {
  const asked: string[] = [];
  const libraries: Record<string, unknown> = {
    '/library/sections': { MediaContainer: { Directory: [{ key: '1', title: 'TV', type: 'show', Location: [{ path: '/srv/media' }] }] } },
    '/Library/VirtualFolders': [{ Name: 'TV', ItemId: 'tv', Locations: ['/srv/media'] }],
    '/Library/VirtualFolders/Query': { Items: [{ Name: 'TV', ItemId: 'tv', Locations: ['/srv/media'] }], TotalRecordCount: 1 },
    '/api/libraries': { libraries: [{ id: 'tv', name: 'TV', folders: [{ fullPath: '/srv/media' }] }] },
    '/api/v3/series': [{ id: 1, title: 'Show', path: '/srv/media/tv/Show' }],
    '/api/v3/movie': [{ id: 1, title: 'Show', path: '/srv/media/tv/Show' }],
  };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    asked.push(`${init?.method ?? 'GET'} ${decodeURIComponent(url.pathname + url.search)} ${String(init?.body ?? '')}`);
    const body = libraries[url.pathname];
    return new Response(JSON.stringify(body ?? {}), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  return { fetch, asked };
}

const configOf = (targets: unknown[]): Config =>
  ({
    ...defaultConfig(() => '0123456789abcdef0123456789abcdef'),
    PLEX_ENABLED: false,
    PLEX_SCANNER: fakeScanner,
    PLEX_WAIT_FOR_EXTERNAL_SCANNERS: false,
    TARGETS: targets,
  }) as Config;

function build(type: string, keys: Record<string, unknown>, fetch?: typeof globalThis.fetch): Target {
  prepareFakeScanner();
  const config: Config = {
    ...defaultConfig(() => '0123456789abcdef0123456789abcdef'),
    PLEX_ENABLED: false,
    PLEX_SCANNER: fakeScanner,
    PLEX_WAIT_FOR_EXTERNAL_SCANNERS: false,
    TARGETS: [entry(type, keys)],
  } as Config;
  const [target] = buildTargets(config, { clock: new ManualClock(), logger: silentLogger, fetch });
  return target;
}

/**
 * The built target with its server's answer stood in for by a scan that takes a few milliseconds: what is
 * measured is how many the processor sends at once and how far apart, which it reads from the built target.
 */
function timed(target: Target) {
  const seen = { now: 0, most: 0, started: 0 };
  const t: Target = {
    ...target,
    async scan() {
      seen.started++;
      seen.most = Math.max(seen.most, ++seen.now);
      await new Promise((r) => setTimeout(r, 5));
      seen.now--;
      return { status: 'scanned' };
    },
  };
  return { t, seen };
}

function relay(target: Target, clock = new ManualClock()) {
  const queue = new Queue(join(mkdtempSync(join(dir, 'q-')), 'queue.db'), clock, { delayMs: 0 });
  const processor = new Processor({
    queue,
    targets: [target],
    clock,
    logger: silentLogger,
    settings: { fileExistMappings: {}, maxFileChecks: 0, fileCheckDelayMs: 0, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 300_000 },
  });
  for (let i = 0; i < 6; i++) queue.enqueue({ folder: `/data/media/tv/Show ${i}`, priority: 0, source: 'sonarr', event: 'Download', deleted: false });
  return { queue, processor, clock };
}

describe.each(TARGET_TYPES)('TYPE %s', (type) => {
  it('SCAN_CONCURRENCY 1 never runs two scans at once; 3 runs three', async () => {
    for (const limit of [1, 3]) {
      const { t, seen } = timed(build(type, { SCAN_CONCURRENCY: limit }));
      expect(t.concurrency).toBe(limit);
      const { processor } = relay(t);
      await processor.drain();
      expect(seen).toMatchObject({ started: 6, most: limit });
    }
  });

  it('SCAN_PAUSE holds the next scan until the pause has passed', async () => {
    const { t, seen } = timed(build(type, { SCAN_PAUSE: 2 }));
    const { processor, clock } = relay(t);
    await processor.tick();
    await processor.idle();
    expect(seen.started).toBe(1);
    clock.advance(1_999);
    await processor.tick();
    await processor.idle();
    expect(seen.started).toBe(1);
    clock.advance(1);
    await processor.tick();
    await processor.idle();
    expect(seen.started).toBe(2);
  });

  it('PATH_MAPPINGS hands the server its own path; EXCLUDE keeps a folder from it without asking it', async () => {
    const { fetch, asked } = server();
    process.env.FAKE_SCANNER_LOG = scannerLog;
    const t = build(type, { PATH_MAPPINGS: { '/srv/media/': ['/data/media/'] }, EXCLUDE: ['/srv/media/kids'] }, fetch);
    expect(t.pathOf!('/data/media/tv/Show')).toEqual({ path: '/srv/media/tv/Show', rewrite: { to: '/srv/media/', from: '/data/media/' } });

    const outcome = await t.scan('/data/media/tv/Show', { ...ctx, file: '/data/media/tv/Show/e1.mkv' });
    // What the server (or program) was handed, wherever the kind puts it: a request, the environment, the argv.
    const handed = [...asked, JSON.stringify(outcome), ...[commandLog, scannerLog].filter(existsSync).map((f) => readFileSync(f, 'utf8'))].join('\n');
    expect(handed).toContain('/srv/media/tv/Show');
    expect(handed).not.toContain('/data/media/tv/Show');

    const before = asked.length;
    expect(await t.scan('/data/media/kids/Bluey', ctx)).toEqual({ status: 'unmatched', detail: "excluded by EXCLUDE '/srv/media/kids'" });
    expect(asked.length).toBe(before);
  });

  it('the doctor answers where a folder would go: its path there and the library holding it, if it lists any', async () => {
    const { fetch } = server();
    const t = build(type, { PATH_MAPPINGS: { '/srv/media/': ['/data/media/'] } }, fetch);
    const e = await explainPath('/data/media/tv/Show/e1.mkv', { config: configOf([]), targets: [t], pathState: async () => 'file' });
    expect(e.targets[0]).toMatchObject({ path: '/srv/media/tv/Show', verdict: 'scan', error: null });
    if (t.libraries) expect(e.targets[0].matches!.length).toBe(1);
    expect(e.verdict).toBe('scan');
  });
});
