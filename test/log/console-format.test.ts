// The console for a person: human lines on a terminal (tmux), JSON lines on a pipe or with --log-format json,
// --log-format human to force; the log file stays JSON; an upgrade's added keys are one line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { consoleFormat, humanLine, parseLogFormat } from '../../src/log/format.js';
import { writeConfigFile } from '../support/config-file.js';
import { runCli, type Child } from '../support/child.js';
import { DIST } from '../support/dist.js';
import { openTerminal } from '../support/terminal.js';
import { until } from '../support/until.js';

const HUMAN = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (INFO |WARN |ERROR|DEBUG) \S/;
const dirs: string[] = [];
const children: Child[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'scanrelay-console-'));
  dirs.push(d);
  return d;
};
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.proc.kill('SIGTERM');
    await c.exited;
  }
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the human line', () => {
  it('is time, padded level and message, then the fields the message does not already say', () => {
    const line = humanLine(JSON.stringify({ level: 'warn', time: '2026-11-22T18:35:21.000Z', msg: "File '/a b' missing", path: '/a b', check: 2, folder: '/x y' }));
    expect(line).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d WARN  File '\/a b' missing  check=2 folder="\/x y"\n$/);
    expect(humanLine('not json')).toBe('not json');
  });

  it('the format flag: human, json, any case; anything else is refused with the choices', () => {
    expect(parseLogFormat('HUMAN')).toBe('human');
    expect(parseLogFormat(undefined)).toBeUndefined();
    expect(() => parseLogFormat('xml')).toThrow(/--log-format human or --log-format json/);
    expect(consoleFormat(undefined, { isTTY: true })).toBe('human');
    expect(consoleFormat(undefined, { isTTY: false })).toBe('json');
    expect(consoleFormat('json', { isTTY: true })).toBe('json');
  });

  it('console human, log file JSON, secrets scrubbed from both', async () => {
    const dir = tempDir();
    const lines: string[] = [];
    const sink = new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) });
    const logger = createLogger({ level: 'info', console: sink, file: join(dir, 'x.log'), format: 'human', secrets: ['s3cret-pass-123'] });
    logger.info({ url: 'http://h/s3cret-pass-123' }, 'Listening');
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.join('')).toMatch(/ INFO  Listening  url=http:\/\/h\/\*\*\*\n$/);
    expect(JSON.parse(readFileSync(join(dir, 'x.log'), 'utf8'))).toMatchObject({ level: 'info', msg: 'Listening', url: 'http://h/***' });
  });
});

/** `server` on a new config in a fresh folder, output on a pipe; resolves once the webhook URL is printed. */
async function server(args: string[], config?: object): Promise<{ out: string; dir: string }> {
  const dir = tempDir();
  if (config) writeConfigFile(dir, config);
  const child = runCli(['server', '--port', '0', '--host', '127.0.0.1', '--config', join(dir, 'config.json'), '--queuefile', join(dir, 'q.db'), '--logfile', join(dir, 'scanrelay.log'), ...args], { cwd: dir });
  children.push(child);
  await child.waitFor(/Health: /, 15_000);
  return { out: child.output(), dir };
}

describe('the console of a running server', () => {
  it('on a pipe: JSON lines, and the first-run note and the webhook URL still readable', async () => {
    const { out, dir } = await server([]);
    const logLines = out.split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThanOrEqual(2);
    for (const l of logLines) expect(() => JSON.parse(l)).not.toThrow();
    expect(out).toContain('No config file found: wrote a default one');
    expect(out).toMatch(/Webhook URL \(give it to Sonarr, Radarr, Lidarr: Settings > Connect > Webhook\):\n {2}http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\n/);
    expect(readFileSync(join(dir, 'scanrelay.log'), 'utf8').split('\n').filter(Boolean).every((l) => l.startsWith('{'))).toBe(true);
  });

  it('--log-format human on a pipe: human lines; the log file stays JSON', async () => {
    const { out, dir } = await server(['--log-format', 'human']);
    const logLines = out.split('\n').filter((l) => /^\d{4}-/.test(l));
    expect(logLines.length).toBeGreaterThanOrEqual(2);
    for (const l of logLines) expect(l).toMatch(HUMAN);
    expect(out).not.toMatch(/^\{"level"/m);
    expect(readFileSync(join(dir, 'scanrelay.log'), 'utf8').split('\n').filter(Boolean).every((l) => l.startsWith('{'))).toBe(true);
  });

  it('an upgraded config: the added keys are one line that lists them', async () => {
    const { out } = await server(['--log-format', 'json'], { SERVER_PASS: '0123456789abcdef0123456789abcdef', PLEX_TOKEN: '' });
    const added = out.split('\n').filter((l) => l.includes('Added'));
    expect(added).toHaveLength(1);
    const entry = JSON.parse(added[0]) as { msg: string; keys: string[] };
    expect(entry.keys.length).toBeGreaterThan(10);
    expect(entry.keys).toContain('PLEX_USER');
    expect(entry.msg).toMatch(/^Added \d+ config options with their defaults: .*PLEX_USER/);
  });

  it('an unknown --log-format stops with the choices', async () => {
    const child = runCli(['server', '--log-format', 'xml', '--config', join(tempDir(), 'c.json')]);
    expect(await child.exited).toBe(1);
    expect(child.output()).toContain("unknown log format 'xml': use --log-format human or --log-format json");
  });
});

describe('on a terminal (tmux)', () => {
  it('human lines without any flag', async () => {
    const dir = tempDir();
    const terminal = openTerminal({
      socket: `scanrelay-console-${process.pid}`,
      session: 'srv',
      dir,
      argv: [process.execPath, DIST, 'server', '--port', '0', '--host', '127.0.0.1', '--config', join(dir, 'config.json'), '--queuefile', join(dir, 'q.db'), '--logfile', join(dir, 'x.log')],
    });
    const screen = terminal.screen;
    try {
      await until(() => screen().includes('Health: '), { ms: 15_000, every: 50, what: () => `'Health: ' on the screen:\n${screen()}` });
      const text = screen();
      expect(text).toContain('Health: ');
      const logLines = text.split('\n').filter((l) => /^\d{4}-/.test(l));
      expect(logLines.length).toBeGreaterThanOrEqual(2);
      for (const l of logLines) expect(l).toMatch(HUMAN);
      expect(text).not.toContain('{"level"');
    } finally {
      terminal.close();
    }
  });
});
