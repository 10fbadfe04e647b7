// Unknown config keys: a warning with "did you mean" and the line; a typo of a missing key stops the start
// with the file untouched; any rewrite leaves a timestamped backup beside the file.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/child.js';

const SECRET = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const setup = (text: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-keys-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, text);
  return { dir, file };
};
const cli = (dir: string, file: string, args: string[]) =>
  runCli(['--config', file, '--queuefile', join(dir, 'queue.db'), '--logfile', join(dir, 'log.txt'), ...args], { cwd: dir });

describe('unknown config keys', () => {
  it('a typo of a missing key: the server refuses to start, naming both keys and the line; the file is not rewritten', async () => {
    const text = `{\n  "SERVER_PASS": "${SECRET}",\n  "SERVER_PAT_MAPPINGS": { "/data/TV/": ["/tv/"] }\n}\n`;
    const { dir, file } = setup(text);
    const child = cli(dir, file, ['server', '--port', '0']);
    expect(await child.exited).toBe(1);
    const out = child.output();
    expect(out).toContain(`'SERVER_PAT_MAPPINGS' (line 3) looks like a typo of 'SERVER_PATH_MAPPINGS', which is missing`);
    expect(out).not.toMatch(/scanrelay is running/);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(dir).filter((f) => f.endsWith('.bak'))).toEqual([]);
  });

  it('the same inside an object: GOOGLE.ENABLD for a missing GOOGLE.ENABLED', async () => {
    const { dir, file } = setup(JSON.stringify({ SERVER_PASS: SECRET, GOOGLE: { ENABLD: true } }, null, 2));
    const child = cli(dir, file, ['server', '--port', '0']);
    expect(await child.exited).toBe(1);
    expect(child.output()).toContain(`'GOOGLE.ENABLD' (line 4) looks like a typo of 'GOOGLE.ENABLED'`);
  });

  it('other unknown keys: a WARN each with "did you mean" and the line; the rewrite keeps a timestamped backup', async () => {
    const text = `{\n  "SERVER_PASS": "${SECRET}",\n  "SERVER_PORT": 3468,\n  "SERVER_PORTT": 3469,\n  "MY_NOTES": "x",\n  "GDRIVE": {}\n}\n`;
    const { dir, file } = setup(text);
    chmodSync(file, 0o600);
    const child = cli(dir, file, ['update_config']);
    expect(await child.exited, child.output()).toBe(0);
    const out = child.output();
    expect(out).toMatch(/(WARN|"warn").*Unknown config key 'SERVER_PORTT' on line 4 of '.*config\.json': did you mean 'SERVER_PORT'\?/);
    expect(out).toMatch(/(WARN|"warn").*Unknown config key 'MY_NOTES' on line 5 of '.*config\.json'\. It has no effect\./);
    // A legacy plex_autoscan key is not a mistake.
    expect(out).not.toMatch(/Unknown config key 'GDRIVE'/);
    const backups = readdirSync(dir).filter((f) => /^config\.json\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.bak$/.test(f));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, backups[0]), 'utf8')).toBe(text);
    expect(statSync(join(dir, backups[0])).mode & 0o777).toBe(0o600); // it holds the same secrets
    const rewritten = JSON.parse(readFileSync(file, 'utf8'));
    expect(rewritten.SERVER_PATH_MAPPINGS).toEqual({});
    expect(rewritten.SERVER_PORTT).toBe(3469);
    expect(out).toContain(`Copied the config to '${join(dir, backups[0])}'`);
  });
});
