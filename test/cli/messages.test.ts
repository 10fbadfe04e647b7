// Messages written for the person reading them, and README/--help saying what the code does.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeConfigFile } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';
import { runCli } from '../support/child.js';
import { SECRET, testService } from '../support/service.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

describe('README and --help match the code', () => {
  it('the README names no spec section or issue, lists each command once, and says the URL is printed at every start', () => {
    expect(readme).not.toMatch(/\bspec\b|section 4\.\d|issue \d/i);
    const table = readme.slice(readme.indexOf('## Commands'), readme.indexOf('## HTTP'));
    const rows = table.split('\n').filter((l) => l.startsWith('| `npx scanrelay '));
    const commands = rows.map((l) => /^\| `npx scanrelay ([a-z_+-]+)/.exec(l)![1]);
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.filter((c) => c === 'explain')).toHaveLength(1);
    expect(new Set(commands).size).toBe(commands.length);
    expect(readme).not.toMatch(/printed once|prints the webhook URL once/);
    expect(readme).toMatch(/At every start it prints the webhook URL/);
  });

  it("the quick start names every program .ci/run installs for the tests, with its Debian package", () => {
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## First scan'));
    const ci = readFileSync(join(repoRoot, '.ci', 'run'), 'utf8');
    const needs = [...ci.matchAll(/^command -v (\S+) .*\|\| need\+=\((\S+)\)$/gm)].map((m) => ({ program: m[1], pkg: m[2] }));
    expect(needs.map((n) => n.program)).toContain('xmllint');
    for (const { program, pkg } of needs) {
      expect(quickStart, program).toContain(`\`${program}\``);
      if (pkg !== program) expect(quickStart, pkg).toContain(`\`${pkg}\``);
    }
  });

  it('--help and the README list the same five log levels the code accepts', async () => {
    const help = runCli(['server', '--help']);
    expect(await help.exited).toBe(0);
    expect(help.output()).toContain('ERROR, WARN, INFO, DEBUG or TRACE');
    expect(readme).toContain('`--loglevel` (ERROR, WARN, INFO, DEBUG or TRACE, any case)');
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-msg-'));
    for (const level of ['error', 'WARN', 'info', 'Debug', 'trace']) {
      const ok = runCli(['--config', join(dir, 'c.json'), '--loglevel', level, 'update_config'], { cwd: dir });
      expect(await ok.exited, level).toBe(0);
    }
  }, 60_000);
});

describe('plain-text errors from every command', () => {
  it('build-caches and authorize print their errors as sentences, not JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-msg-'));
    const config = writeConfigFile(dir, { SERVER_PASS: SECRET });
    for (const command of ['build-caches', 'authorize']) {
      const child = runCli(['--config', config, '--queuefile', join(dir, 'queue.db'), '--logfile', join(dir, 'log.txt'), command], { cwd: dir, input: '' });
      expect(await child.exited, child.output()).toBe(1);
      const out = child.output().trim();
      expect(out, command).not.toMatch(/^\{|"level"/m);
      expect(out.length, command).toBeGreaterThan(10);
    }
    // The log file keeps the structured lines.
    expect(readFileSync(join(dir, 'log.txt'), 'utf8')).toMatch(/"level":"error"/);
  }, 60_000);
});

describe('the Plex database warning', () => {
  it('with Drive disabled, says what is affected without mentioning Drive', async () => {
    const t = await testService({ config: { PLEX_DATABASE_PATH: join(tmpdir(), 'no-such-plex.db') } as never });
    try {
      t.plex.onDisk.add('/data/media/tv/Show/Season 01/e1.mkv');
      const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/data/media/tv/Show/Season 01/e1.mkv' } });
      expect(res.statusCode).toBe(200);
      t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
      await t.service.processor.drain();
      const logs = t.logs.join('');
      expect(logs).toMatch(/Plex database unavailable .*scans are confirmed through the Plex API instead\./);
      expect(logs).not.toMatch(/Drive files/);
    } finally {
      await t.close();
    }
  });
});
