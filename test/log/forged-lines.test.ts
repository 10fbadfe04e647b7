// The human console cannot be forged: an eventType, a Plex section title or a Plex error body holding a newline,
// a fake log line and terminal escapes comes out as one line with them escaped in JSON's form.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, flushLogs } from '../../src/log/logger.js';
import { humanLine, humanStream } from '../../src/log/format.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const FORGED = '\n2026-11-27 00:00:00 ERROR forged';
/** Clears the line and paints red (ESC, CSI), a C1 CSI, a right-to-left override, a line separator, DEL. */
const TERMINAL = '\x1b[2K\x1b[31m\x9b2J\u202e\u2028\x7f';
const HUMAN = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (INFO |WARN |ERROR|DEBUG|TRACE|FATAL) \S/;
/** Anything a terminal would act on rather than show. */
const ACTS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The console a person reads: each JSON line through the human stream, as `--log-format human` writes it. */
function humanConsole(jsonLines: string[]): string[] {
  const out: string[] = [];
  const stream = humanStream({ write: (chunk: string) => out.push(chunk) });
  for (const line of jsonLines) stream.write(line);
  return out.join('').split('\n').filter((l) => l !== '');
}

describe('a forged console line', () => {
  it('is one line with the newline and escapes shown, in the message, a field and a field name', () => {
    const evil = `Grab${FORGED}${TERMINAL}`;
    const line = humanLine(JSON.stringify({ level: 'info', time: '2026-11-27T00:00:00.000Z', msg: `Nothing to scan for '${evil}'`, event: `${evil} x`, [`k${FORGED}`]: 1 }));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(ACTS);
    expect(line).toMatch(HUMAN);
    expect(line).toContain(String.raw`Nothing to scan for 'Grab\n2026-11-27 00:00:00 ERROR forged\u001b[2K\u001b[31m\u009b2J\u202e\u2028\u007f'`);
    expect(line).toContain(String.raw`event="Grab\n2026-11-27 00:00:00 ERROR forged\u001b[2K\u001b[31m\u009b2J\u202e\u2028\u007f x"`);
    expect(line).toContain(String.raw`k\n2026-11-27 00:00:00 ERROR forged=1`);
    // A bare word is still bare, unless a control hides in it.
    expect(humanLine(JSON.stringify({ level: 'info', msg: 'm', a: 'plain', b: '\x1b[31mred' }))).toMatch(/ m {2}a=plain b="\\u001b\[31mred"\n$/);
    expect(humanLine(`not json${TERMINAL}`)).toBe(String.raw`not json\u001b[2K\u001b[31m\u009b2J\u202e\u2028\u007f`);
  });

  it('through a real logger with --log-format human: one console line, its controls escaped', async () => {
    const out: string[] = [];
    const sink = new Writable({ write: (c, _e, cb) => (out.push(String(c)), cb()) });
    const logger = createLogger({ level: 'info', console: sink, format: 'human' });
    logger.warn({ section: `Movies${FORGED}` }, `Plex answered 500: oops${FORGED}${TERMINAL}`);
    await new Promise((r) => setTimeout(r, 20));
    const lines = out.join('').split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(HUMAN);
    expect(lines[0]).not.toMatch(ACTS);
  });

  it('in the log file: what JSON leaves raw (DEL, C1, separators, bidi controls) is escaped, and parses back to the same text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-forged-'));
    try {
      const file = join(dir, 'scanrelay.log');
      const logger = createLogger({ level: 'info', console: null, file });
      const name = `Show\u202e4pm.mkv${FORGED}${TERMINAL}\u2066x\u2069`;
      logger.warn({ path: name }, `Nothing maps '${name}'`);
      flushLogs(logger);
      const raw = readFileSync(file, 'utf8');
      const lines = raw.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      // JSON.stringify already escapes C0; before this the rest reached the file as it came.
      expect(lines[0]).not.toMatch(ACTS);
      expect(lines[0]).toContain(String.raw`Show\u202e4pm.mkv\n2026-11-27 00:00:00 ERROR forged\u001b[2K\u001b[31m\u009b2J\u202e\u2028\u007f\u2066x\u2069`);
      const entry = JSON.parse(lines[0]) as { msg: string; path: string };
      expect(entry.path).toBe(name);
      expect(entry.msg).toBe(`Nothing maps '${name}'`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('from a webhook, a Plex section title and a Plex error body, through the real service', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1, PLEX_CONFIRM_SCANS: false } });
    // An eventType of its own making: answered "nothing to scan" and logged with the event's name.
    const hook = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: `Grab${FORGED}${TERMINAL}`, series: { path: '/data/media/tv/S' } } });
    expect(hook.statusCode).toBe(200);
    // A section title and an error body, chosen by whoever runs (or pretends to be) the Plex server.
    t.plex.sections[1].title = `TV Shows${FORGED}${TERMINAL}`;
    const scan = async (show: string) => {
      const res = await t!.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: `/data/media/tv/${show}/e.mkv` } });
      expect(res.statusCode).toBe(200);
      t!.clock.advance(1_500);
      await t!.service.processor.drain();
    };
    await scan('Titled');
    t.plex.failure = { status: 500, body: `oops${FORGED}${TERMINAL}` };
    await scan('Refused');

    const json = t.logs.join('').split('\n').filter(Boolean);
    const forged = json.filter((l) => l.includes('ERROR forged'));
    // The event's name, the section in the scan's line, the body in the failure's line: each one JSON line.
    expect(forged.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      expect.stringMatching(/^Nothing to scan for sonarr 'Grab\n2026/),
      expect.stringMatching(/^Scanned '\/data\/media\/tv\/Titled' on plex \(section 2 TV Shows\n2026/),
      expect.stringMatching(/^Scan of '\/data\/media\/tv\/Refused' on plex failed .*: oops\n2026/),
    ]);
    const lines = humanConsole(forged);
    expect(lines).toHaveLength(forged.length);
    for (const line of lines) {
      expect(line).toMatch(HUMAN);
      expect(line).not.toMatch(ACTS);
      expect(line).toContain(String.raw`\n2026-11-27 00:00:00 ERROR forged`);
    }
  });
});
