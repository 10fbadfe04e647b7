// The plex-scanner target with the fake scanner: every section holding the folder, failures as retries,
// and the bounded wait for other scanners.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { plexScannerTarget, type SectionLocations } from '../../src/targets/plex/scanner-target.js';
import type { ScanContext } from '../../src/scan.js';
import { prepareFakeScanner, scannerSettings } from '../support/scanner.js';

const ctx: ScanContext = { event: 'Download', source: 'radarr', deleted: false };
const sections: SectionLocations[] = [
  { id: 1, title: 'Movies', locations: ['/data/media/movies'] },
  { id: 5, title: 'Movies (all)', locations: ['/data/media/tv', '/data/media/movies'] },
  { id: 2, title: 'TV Shows', locations: ['/data/media/tv'] },
];

let dir: string;
let log: string;
beforeAll(prepareFakeScanner);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-plex-scanner-'));
  log = join(dir, 'runs.jsonl');
  vi.stubEnv('FAKE_SCANNER_LOG', log);
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

const runs = (): { argv: string[] }[] =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];

const settings = scannerSettings;

describe('plex-scanner target', () => {
  it('scans every section whose folder holds the path', async () => {
    const t = plexScannerTarget({ name: 'plex-cli', settings: settings(), sections: async () => sections });
    expect(t.kind).toBe('plex-scanner');
    const outcome = await t.scan('/data/media/movies/Dune (2021)/', ctx);
    expect(outcome).toEqual({ status: 'scanned', detail: 'sections 1 (Movies), 5 (Movies (all))', sections: ['1', '5'] });
    expect(runs().map((r) => r.argv)).toEqual([
      ['--scan', '--refresh', '--section', '1', '--directory', '/data/media/movies/Dune (2021)'],
      ['--scan', '--refresh', '--section', '5', '--directory', '/data/media/movies/Dune (2021)'],
    ]);
  });

  it('is unmatched when no section holds the folder', async () => {
    const t = plexScannerTarget({ name: 'plex-cli', settings: settings(), sections: async () => sections });
    const outcome = await t.scan('/data/media/movies-4k/X', ctx);
    expect(outcome.status).toBe('unmatched');
    expect(outcome.status === 'unmatched' && outcome.detail).toContain('known locations: /data/media/movies, /data/media/tv');
    expect(runs()).toEqual([]);
  });

  it('turns a failing scanner into a retry that keeps the target up and names the cause', async () => {
    vi.stubEnv('FAKE_SCANNER_FAIL', 'permission');
    const t = plexScannerTarget({ name: 'plex-cli', settings: settings(), sections: async () => sections });
    const outcome = await t.scan('/data/media/tv/Show', ctx);
    expect(outcome).toMatchObject({ status: 'retry', targetDown: false });
    expect(outcome.status === 'retry' && outcome.error).toMatch(/^plex-scanner 'plex-cli' section 5 \(Movies \(all\)\): .*permission denied/);
  });

  it('is down while the section list cannot be read', async () => {
    const t = plexScannerTarget({
      name: 'plex-cli',
      settings: settings(),
      sections: async () => {
        throw new Error('database is locked');
      },
    });
    expect(await t.scan('/data/media/tv/Show', ctx)).toEqual({
      status: 'retry',
      error: "plex-scanner 'plex-cli' cannot read Plex's sections: database is locked",
      targetDown: true,
    });
    expect(await t.available()).toMatchObject({ ok: false });
  });

  it('waits for another scanner first, and gives the folder back when it never finishes', async () => {
    const slept: number[] = [];
    let busy = 2;
    const t = plexScannerTarget({
      name: 'plex-cli',
      settings: settings({ waitForExternalScanners: true }),
      sections: async () => sections,
      wait: {
        find: async () => (busy-- > 0 ? [{ pid: 42, command: 'Plex Media Scanner --analyze' }] : []),
        sleep: async (ms) => void slept.push(ms),
        pollMs: 1_000,
        maxWaitMs: 5_000,
      },
    });
    expect((await t.scan('/data/media/tv/Show', ctx)).status).toBe('scanned');
    expect(slept).toEqual([1_000, 1_000]);

    busy = Infinity;
    const outcome = await t.scan('/data/media/tv/Show', ctx);
    expect(outcome).toMatchObject({ status: 'retry', targetDown: false });
    expect(outcome.status === 'retry' && outcome.error).toContain('another Plex Media Scanner (pid 42) was still running after 5 s');
    expect(runs()).toHaveLength(2); // sections 5 and 2 from the first scan only
  });

  it('is available when the sections load and the scanner exists', async () => {
    const ok = plexScannerTarget({ name: 'p', settings: settings(), sections: async () => sections });
    expect(await ok.available()).toEqual({ ok: true });
    const missing = plexScannerTarget({ name: 'p', settings: settings({ scanner: join(dir, 'Plex\\ Media\\ Scanner') }), sections: async () => sections });
    expect(await missing.available()).toEqual({
      ok: false,
      error: `plex-scanner 'p': the scanner '${join(dir, 'Plex Media Scanner')}' does not exist: check PLEX_SCANNER`,
    });
  });
});
