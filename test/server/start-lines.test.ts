// The lines a first start writes (the real CLI): no ERROR without a token, one WARN saying what to set; Plex's
// database at its default path is at most one INFO line, and a WARN only when the user set PLEX_DATABASE_PATH.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../support/config-file.js';
import { runCli, type Child } from '../support/child.js';
import { SECRET } from '../support/service.js';
import { until } from '../support/until.js';
import { FakePlex } from '../fakes/plex.js';

let running: Child | undefined;
afterEach(async () => {
  if (running && running.proc.exitCode === null) {
    running.proc.kill('SIGTERM');
    await running.exited;
  }
  running = undefined;
});

let plex: FakePlex;
beforeAll(async () => {
  plex = await new FakePlex().start();
});
afterAll(async () => plex.stop());

/** Starts the real server on `values` (or a new config when undefined), waits for the banner, stops it; its log lines. */
async function startLines(values: object | undefined): Promise<{ level: string; msg: string }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-lines-'));
  const config = values ? writeConfigFile(dir, values) : join(dir, 'config.json');
  const log = join(dir, 'scanrelay.log');
  running = runCli(['--config', config, '--queuefile', join(dir, 'queue.db'), '--logfile', log, 'server', '--port', '0', '--host', '127.0.0.1'], { cwd: dir });
  const [, url] = await running.waitFor(/Health: (http:\/\/\S+)\/health/, 30_000);
  // The banner says where this run's files are.
  await running.waitFor(/Log: \S+/, 5_000);
  expect(running.output()).toContain(`\nConfig: ${config}\nQueue: ${join(dir, 'queue.db')}\nLog: ${log}\n`);
  // /health?ready answers once every target was asked once: the lines of the first probe are written by then.
  await until(async () => (await fetch(`${url}/health?ready`)).status === 200, { ms: 30_000, every: 50, what: '/health?ready' });
  running.proc.kill('SIGTERM');
  expect(await running.exited).toBe(0);
  return readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { level: string; msg: string });
}

describe('start-up lines', () => {
  it('a first start with no token: no ERROR, one WARN that names PLEX_TOKEN and PLEX_LOCAL_URL', async () => {
    const lines = await startLines(undefined);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    const warns = lines.filter((l) => l.level === 'warn');
    expect(warns).toHaveLength(1);
    expect(warns[0].msg).toMatch(/^PLEX_TOKEN is empty: set PLEX_LOCAL_URL and PLEX_TOKEN in config.json/);
    expect(lines.map((l) => l.msg).join('\n')).not.toContain('Plex database');
  }, 60_000);

  it('a token and no database at the default path: no WARN about the database, at most one INFO', async () => {
    const lines = await startLines({ SERVER_PASS: SECRET, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    const about = lines.filter((l) => l.msg.includes('Plex database'));
    expect(about.filter((l) => l.level !== 'info')).toEqual([]);
    expect(about.length).toBeLessThanOrEqual(1);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  }, 60_000);

  it('a PLEX_DATABASE_PATH the user set that cannot be read: a WARN naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-db-'));
    const path = join(dir, 'com.plexapp.plugins.library.db');
    const lines = await startLines({ SERVER_PASS: SECRET, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token, PLEX_DATABASE_PATH: path, PLEX_CHECK_BEFORE_SCAN: true });
    expect(lines.filter((l) => l.level === 'warn' && l.msg.includes(`Plex database unavailable (cannot open ${path}`))).toHaveLength(1);
  }, 60_000);
});
