// `scanrelay scan` end to end with the fake scanner: the exact argv and environment of docs/targets.md, plainly,
// through sudo and through docker exec, and its failures reported with a non-zero exit.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { CommanderError } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scanCommand, type SectionLocation } from '../../src/cli/scan.js';
import { printScannerSections } from '../../src/cli/sections-scanner.js';
import type { Config } from '../../src/config/schema.js';
import type { ScannerSettings } from '../../src/targets/plex/scanner.js';
import { fakeScanner, scannerSettings } from '../support/scanner.js';

// Records its argv, drops the variables a real sudo would reset, then runs the rest (after "-u <user>").
const fakeSudo = `
import { appendFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
const argv = process.argv.slice(2);
appendFileSync(process.env.FAKE_WRAPPER_LOG, JSON.stringify({ tool: 'sudo', argv }) + '\\n');
if (argv[0] !== '-u') { console.error('fake sudo: expected -u'); process.exit(1); }
const env = { ...process.env };
delete env.LD_LIBRARY_PATH; delete env.PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR;
const r = spawnSync(argv[2], argv.slice(3), { stdio: 'inherit', env });
if (r.error) { console.error('sudo: ' + argv[2] + ': command not found'); process.exit(1); }
if (r.signal) process.kill(process.pid, r.signal);
process.exit(r.status ?? 1);
`;

// Records its argv, then runs "exec [-u U] [-e K=V]... <name> cmd..." with only the -e variables set.
const fakeDocker = `
import { appendFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
const argv = process.argv.slice(2);
appendFileSync(process.env.FAKE_WRAPPER_LOG, JSON.stringify({ tool: 'docker', argv }) + '\\n');
if (argv[0] !== 'exec') { console.error('fake docker: only exec'); process.exit(1); }
const env = { ...process.env };
delete env.LD_LIBRARY_PATH; delete env.PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR;
let i = 1;
while (argv[i] && argv[i].startsWith('-')) {
  if (argv[i] === '-e') { const [k, ...v] = argv[i + 1].split('='); env[k] = v.join('='); i += 2; }
  else if (argv[i] === '-u') i += 2;
  else i += 1;
}
const name = argv[i];
const r = spawnSync(argv[i + 1], argv.slice(i + 2), { stdio: 'inherit', env: { ...env, FAKE_CONTAINER: name } });
if (r.error) { console.error('OCI runtime exec failed: ' + r.error.message); process.exit(126); }
process.exit(r.status ?? (r.signal === 'SIGSEGV' ? 139 : 137));
`;

const WATCHED = {
  LD_LIBRARY_PATH: '/usr/lib/plexmediaserver/lib',
  PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR: '/var/lib/plexmediaserver/Library/Application Support',
};

let dir: string;
let scanner: string;
let escapedScanner: string;
let scannerLog: string;
let wrapperLog: string;
let outLines: string[];
let errText: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-scan-cli-'));
  // The scanner lives under a path with spaces, configured the plex_autoscan way (backslash-escaped).
  const plexDir = join(dir, 'usr lib', 'Plex Media Server');
  mkdirSync(plexDir, { recursive: true });
  scanner = join(plexDir, 'Plex Media Scanner');
  copyFileSync(fakeScanner, scanner);
  chmodSync(scanner, 0o755);
  escapedScanner = scanner.replace(/ /g, '\\ ');

  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const [name, body] of [
    ['sudo', fakeSudo],
    ['docker', fakeDocker],
  ]) {
    writeFileSync(join(bin, name), `#!${process.execPath}\n${body}`);
    chmodSync(join(bin, name), 0o755);
  }
  scannerLog = join(dir, 'scanner.jsonl');
  wrapperLog = join(dir, 'wrappers.jsonl');
  vi.stubEnv('PATH', bin + delimiter + (process.env.PATH ?? ''));
  vi.stubEnv('FAKE_SCANNER_LOG', scannerLog);
  vi.stubEnv('FAKE_WRAPPER_LOG', wrapperLog);
  vi.stubEnv('LD_LIBRARY_PATH', '/somewhere/else');
  outLines = [];
  errText = '';
});

afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

const jsonl = (file: string): Record<string, unknown>[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];

function settings(over: Partial<ScannerSettings> = {}): ScannerSettings {
  return scannerSettings({ scanner: escapedScanner, supportDir: '/var/lib/plexmediaserver/Library/Application\\ Support', ...over });
}

async function scan(args: string[], over: Partial<ScannerSettings> = {}, sections: SectionLocation[] = []): Promise<void> {
  const command = scanCommand({
    settings: () => settings(over),
    findSections: async () => sections,
    out: (line) => outLines.push(line),
  });
  command.exitOverride();
  command.configureOutput({ writeOut: (s) => outLines.push(s), writeErr: (s) => (errText += s) });
  await command.parseAsync(args, { from: 'user' });
}

describe('scanrelay scan', () => {
  // Spaces, both quotes, a command substitution, backticks and a glob: a shell would have mangled or run them.
  const hostile = () => `/data/media/movies/It's "Dune" $(touch ${dir}/pwned) \`touch ${dir}/pwned2\` *`;

  it("runs <scanner> --scan --refresh --section <id> --directory <path> with Plex's library path and support folder in its environment", async () => {
    const path = hostile();
    await scan(['--section', '3', '--directory', path]);
    expect(jsonl(scannerLog)).toEqual([
      {
        argv: ['--scan', '--refresh', '--section', '3', '--directory', path],
        env: WATCHED,
        user: expect.any(String),
        uid: expect.any(Number),
      },
    ]);
    expect(jsonl(wrapperLog)).toEqual([]);
    expect(existsSync(join(dir, 'pwned')) || existsSync(join(dir, 'pwned2'))).toBe(false);
    expect(outLines).toContain(`Scanned '${path}' in section 3.`);
  });

  it('goes through sudo -u PLEX_USER env ... with USE_SUDO', async () => {
    const path = hostile();
    await scan(['--section', '3', '--directory', path], { useSudo: true, user: 'plex' });
    expect(jsonl(wrapperLog)).toEqual([
      {
        tool: 'sudo',
        argv: [
          '-u',
          'plex',
          'env',
          `LD_LIBRARY_PATH=${WATCHED.LD_LIBRARY_PATH}`,
          `PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR=${WATCHED.PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR}`,
          scanner,
          '--scan',
          '--refresh',
          '--section',
          '3',
          '--directory',
          path,
        ],
      },
    ]);
    // sudo dropped the variables; env(1) put them back for the scanner.
    expect(jsonl(scannerLog)).toMatchObject([{ argv: ['--scan', '--refresh', '--section', '3', '--directory', path], env: WATCHED }]);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  });

  it('goes through docker exec -u PLEX_USER -e LD_LIBRARY_PATH <DOCKER_NAME> with USE_DOCKER', async () => {
    const path = hostile();
    await scan(['-s', '3', '-d', path], { useDocker: true, useSudo: true, user: 'abc', dockerName: 'plex-4k' });
    expect(jsonl(wrapperLog)).toEqual([
      {
        tool: 'docker',
        argv: [
          'exec',
          '-u',
          'abc',
          '-e',
          `LD_LIBRARY_PATH=${WATCHED.LD_LIBRARY_PATH}`,
          'plex-4k',
          scanner,
          '--scan',
          '--refresh',
          '--section',
          '3',
          '--directory',
          path,
        ],
      },
    ]);
    // No support dir inside the container: Plex's image sets it itself.
    expect(jsonl(scannerLog)).toMatchObject([{ argv: ['--scan', '--refresh', '--section', '3', '--directory', path], env: { LD_LIBRARY_PATH: WATCHED.LD_LIBRARY_PATH } }]);
    expect(jsonl(scannerLog)[0].env).not.toHaveProperty('PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR');
  });

  it('finds the sections from the path when --section is absent, and scans each that holds it', async () => {
    const path = '/data/media/movies/Dune (2021)';
    await scan(['--directory', path], {}, [
      { id: 1, title: 'Movies', location: '/data/media/movies' },
      { id: 4, title: 'Movies 4K', location: '/data/media/movies/' },
      { id: 2, title: 'TV', location: '/data/media/tv' },
      { id: 9, title: 'Lookalike', location: '/data/media/mov' },
    ]);
    expect(jsonl(scannerLog).map((r) => (r.argv as string[])[3])).toEqual(['1', '4']);
    expect(outLines).toContain(`Scanned '${path}' in section 4 (Movies 4K).`);
  });

  it('fails with the known folders when no section holds the path', async () => {
    const err = await scan(['--directory', '/elsewhere/x'], {}, [{ id: 1, title: 'Movies', location: '/data/media/movies' }]).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).exitCode).toBe(1);
    expect(errText).toMatch(/no Plex section holds '\/elsewhere\/x' \(section folders: \/data\/media\/movies\); pass --section/);
    expect(jsonl(scannerLog)).toEqual([]);
  });

  it("refuses a section's own folder unless --library-root, with or without --section", async () => {
    const sections = [
      { id: 2, title: 'TV Shows', location: '/data/media/tv' },
      { id: 1, title: 'Movies', location: '/data/media/movies' },
    ];
    for (const args of [['--directory', '/data/media/tv/'], ['--section', '2', '--directory', '/data/media/tv']]) {
      errText = '';
      const err = await scan(args, {}, sections).catch((e: unknown) => e);
      expect((err as CommanderError).exitCode, args.join(' ')).toBe(1);
      expect(errText).toMatch(/'\/data\/media\/tv\/?' is the root of section 2 \(TV Shows\), so scanning it would scan the whole section: pass --library-root/);
    }
    expect(jsonl(scannerLog)).toEqual([]);
    await scan(['--library-root', '--directory', '/data/media/tv'], {}, sections);
    await scan(['--directory', '/data/media/tv/Show'], {}, sections);
    expect(jsonl(scannerLog).map((r) => (r.argv as string[]).slice(3))).toEqual([
      ['2', '--directory', '/data/media/tv'],
      ['2', '--directory', '/data/media/tv/Show'],
    ]);
  });

  it.each([
    ['exit:2', {}, /exited with code 2/],
    ['permission', {}, /reported "permission denied"/],
    ['crashed', {}, /crashed \(it printed "PLEX MEDIA SCANNER CRASHED"\)/],
    ['signal:SIGSEGV', {}, /killed by signal SIGSEGV/],
    ['signal:SIGSEGV', { useSudo: true }, /killed by signal SIGSEGV/],
    ['exit:2', { useDocker: true }, /exited with code 2 \(route: docker exec in 'plex'\)/],
    ['permission', { useDocker: true }, /reported "permission denied"/],
  ] as const)('reports %s (%o) with a non-zero exit', async (failure, over, message) => {
    vi.stubEnv('FAKE_SCANNER_FAIL', failure);
    const err = await scan(['--section', '1', '--directory', '/data/media/movies/A'], over).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).exitCode).toBe(1);
    expect(errText).toContain("scan of '/data/media/movies/A' in section 1 failed");
    expect(errText).toMatch(message);
    expect(outLines.some((l) => l.startsWith('Scanned'))).toBe(false);
  });

  it('names PLEX_SCANNER when the scanner is missing', async () => {
    const err = await scan(['--section', '1', '--directory', '/x'], { scanner: join(dir, 'nope') }).catch((e: unknown) => e);
    expect((err as CommanderError).exitCode).toBe(1);
    expect(errText).toMatch(/does not exist: check PLEX_SCANNER/);
  });

  it('rejects a section that is not a number and requires --directory', async () => {
    await expect(scan(['--section', 'movies', '--directory', '/x'])).rejects.toBeInstanceOf(CommanderError);
    expect(errText).toMatch(/whole number/);
    await expect(scan(['--section', '1'])).rejects.toBeInstanceOf(CommanderError);
    expect(errText).toMatch(/--directory/);
    expect(jsonl(scannerLog)).toEqual([]);
  });

  it('explains itself in --help', async () => {
    const err = await scan(['--help']).catch((e: unknown) => e);
    expect((err as CommanderError).exitCode).toBe(0);
    const help = outLines.join('');
    expect(help).toContain('--section <id>');
    expect(help).toContain('--directory <path>');
    expect(help).toContain('USE_SUDO');
    expect(help).toContain('never through a shell');
    expect(help).toContain('--library-root');
  });
});

describe('sections --scanner', () => {
  it('prints the sections the scanner lists, through docker too', async () => {
    const lines: string[] = [];
    vi.stubEnv('FAKE_SCANNER_SECTIONS', JSON.stringify([[1, 'Movies'], [2, 'TV Shows']]));
    expect(await printScannerSections(settings({ useDocker: true }), { out: (l) => lines.push(l) })).toBe(0);
    expect(lines).toEqual(['Plex Sections:', '  1: Movies', '  2: TV Shows']);
    expect(jsonl(wrapperLog)[0].argv).toEqual(['exec', '-u', 'plex', '-e', `LD_LIBRARY_PATH=${WATCHED.LD_LIBRARY_PATH}`, 'plex', scanner, '--list']);
  });

  it('takes the PLEX_* keys of a config', async () => {
    const lines: string[] = [];
    const config = {
      PLEX_SCANNER: escapedScanner,
      PLEX_SUPPORT_DIR: '/support',
      PLEX_LD_LIBRARY_PATH: '/lib',
      PLEX_USER: 'plex',
      USE_SUDO: false,
      USE_DOCKER: false,
      DOCKER_NAME: 'plex',
      PLEX_WAIT_FOR_EXTERNAL_SCANNERS: false,
    } as unknown as Config;
    expect(await printScannerSections(config, { out: (l) => lines.push(l) })).toBe(0);
    expect(jsonl(scannerLog)).toMatchObject([{ argv: ['--list'], env: { LD_LIBRARY_PATH: '/lib', PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR: '/support' } }]);
    expect(lines[0]).toBe('Plex Sections:');
  });

  it('prints the cause and returns 1 when the scanner fails', async () => {
    vi.stubEnv('FAKE_SCANNER_FAIL', 'permission');
    const errors: string[] = [];
    expect(await printScannerSections(settings(), { out: () => {}, err: (l) => errors.push(l) })).toBe(1);
    expect(errors.join('\n')).toMatch(/permission denied/);
  });
});
