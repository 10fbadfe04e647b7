// The scanrelay command as a user runs it: help texts, a broken config, the first run.
import { mkdtempSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/child.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'scanrelay-cli-'));

describe('scanrelay CLI', () => {
  it('every command has --help', async () => {
    const top = runCli(['--help']);
    expect(await top.exited).toBe(0);
    const commands = [...top.output().matchAll(/^\s{2}([a-z][\w+-]*)(?:\|[\w+-]+)?\s/gm)].map((m) => m[1]).filter((c) => c !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['server', 'sections']));
    for (const c of commands) {
      const child = runCli([c, '--help']);
      expect(await child.exited, c).toBe(0);
      expect(child.output(), c).toMatch(/Usage: scanrelay/);
    }
  }, 60_000);

  it('broken JSON: one line naming the file, line and column; exit 1', async () => {
    const dir = tmp();
    const file = join(dir, 'config.json');
    writeFileSync(file, '{\n  "SERVER_PORT": 3468,\n  "SERVER_PASS": "abc"\n  "PLEX_TOKEN": ""\n}\n');
    const child = runCli(['--config', file, 'server'], { cwd: dir });
    expect(await child.exited).toBe(1);
    const lines = child.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    expect(lines[0]).toMatch(/line 4, column 3/);
  });

  it('a wrong type: one line naming the key and what was expected; exit 1', async () => {
    const dir = tmp();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ SERVER_SCAN_DELAY: 'soon' }));
    const child = runCli(['--config', file, 'server'], { cwd: dir });
    expect(await child.exited).toBe(1);
    const out = child.output().trim();
    expect(out.split('\n')).toHaveLength(1);
    expect(out).toContain('SERVER_SCAN_DELAY');
  });

  it('--loglevel accepts plex_autoscan names in any case and refuses others', async () => {
    const dir = tmp();
    const ok = runCli(['--config', join(dir, 'c.json'), '--loglevel', 'warn', 'update_config'], { cwd: dir });
    expect(await ok.exited).toBe(0);
    const bad = runCli(['--config', join(dir, 'c.json'), '--loglevel', 'LOUD', 'update_config'], { cwd: dir });
    expect(await bad.exited).toBe(1);
    expect(bad.output()).toMatch(/LOUD/);
  });

  it('first run writes a complete default config (0600, random SERVER_PASS) and starts', async () => {
    const dir = tmp();
    const child = runCli(['server', '--port', '0', '--host', '127.0.0.1'], { cwd: dir, env: { SCANRELAY_CONFIG: '', PLEX_AUTOSCAN_CONFIG: '' } });
    const m = await child.waitFor(/http:\/\/127\.0\.0\.1:(\d+)\/([0-9a-f]{32})/);
    const file = join(dir, 'config', 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    expect(config.SERVER_PASS).toBe(m[2]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Object.keys(config.SERVER_PATH_MAPPINGS).length).toBeGreaterThanOrEqual(3);
    const health = await fetch(`http://127.0.0.1:${m[1]}/health`);
    expect(health.status).toBe(200);
    // The secret is printed once on the console but never written to the log file.
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(readFileSync(join(dir, 'scanrelay.log'), 'utf8')).not.toContain(m[2]);
  });
});
