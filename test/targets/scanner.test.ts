// Building and running Plex Media Scanner: argv per route, failures that used to pass as success, --list,
// and the bounded wait for other scanner processes.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  listSections,
  parseSectionList,
  runScanner,
  scannerInvocation,
  scanSection,
  ScannerError,
  unescapeShellPath,
  type ScannerSettings,
} from '../../src/targets/plex/scanner.js';
import { findScannerProcesses, waitForExternalScanners } from '../../src/targets/plex/scanner-processes.js';
import { fakeScanner, prepareFakeScanner, scannerSettings } from '../support/scanner.js';
import { logCollector } from '../drive/harness.js';
import { LONE_SURROGATE } from '../support/surrogates.js';


// plex_autoscan's defaults, backslashes included.
const defaults = scannerSettings({
  scanner: '/usr/lib/plexmediaserver/Plex\\ Media\\ Scanner',
  supportDir: '/var/lib/plexmediaserver/Library/Application\\ Support',
});

let dir: string;
let log: string;
beforeAll(prepareFakeScanner);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-scanner-'));
  log = join(dir, 'runs.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const runs = (): { argv: string[]; env: Record<string, string> }[] =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

const fake = (over: Partial<ScannerSettings> = {}): ScannerSettings => ({ ...defaults, scanner: fakeScanner, ...over });
const envWith = (extra: Record<string, string>): NodeJS.ProcessEnv => ({ ...process.env, FAKE_SCANNER_LOG: log, ...extra });

/** An executable Node script in the test's folder, for a program that prints what a test needs. */
function program(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!${process.execPath}\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('scannerInvocation', () => {
  const args = ['--scan', '--refresh', '--section', '1', '--directory', "/tv/It's $(x)"];

  it('runs the scanner itself with the two variables, spaces unescaped', () => {
    expect(scannerInvocation(defaults, args)).toEqual({
      file: '/usr/lib/plexmediaserver/Plex Media Scanner',
      args,
      env: {
        LD_LIBRARY_PATH: '/usr/lib/plexmediaserver/lib',
        PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR: '/var/lib/plexmediaserver/Library/Application Support',
      },
    });
  });

  it('goes through sudo and env(1) as an argv array', () => {
    expect(scannerInvocation({ ...defaults, useSudo: true }, args)).toEqual({
      file: 'sudo',
      args: [
        '-u',
        'plex',
        'env',
        'LD_LIBRARY_PATH=/usr/lib/plexmediaserver/lib',
        'PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR=/var/lib/plexmediaserver/Library/Application Support',
        '/usr/lib/plexmediaserver/Plex Media Scanner',
        ...args,
      ],
      env: {},
    });
  });

  it('goes through docker exec without the support dir, and docker wins over sudo', () => {
    expect(scannerInvocation({ ...defaults, useDocker: true, useSudo: true, user: 'abc', dockerName: 'plex-4k' }, args)).toEqual({
      file: 'docker',
      args: [
        'exec',
        '-u',
        'abc',
        '-e',
        'LD_LIBRARY_PATH=/usr/lib/plexmediaserver/lib',
        'plex-4k',
        '/usr/lib/plexmediaserver/Plex Media Scanner',
        ...args,
      ],
      env: {},
    });
  });

  it('leaves out empty variables (Windows has no LD_LIBRARY_PATH)', () => {
    expect(scannerInvocation({ ...defaults, ldLibraryPath: '', supportDir: '' }, ['--list']).env).toEqual({});
  });

  it('unescapes only backslash-space', () => {
    expect(unescapeShellPath('C:\\Program Files\\Plex\\ Media')).toBe('C:\\Program Files\\Plex Media');
  });
});

describe('runScanner with the fake scanner', () => {
  it('passes the directory as one untouched argument and the environment', async () => {
    const weird = `${dir}/It's "a" $(touch ${dir}/pwned) \`id\` & more`;
    const lines: string[] = [];
    const run = await scanSection(fake(), 7, weird, { baseEnv: envWith({}), onLine: (l) => lines.push(l) });
    expect(runs()).toEqual([
      {
        argv: ['--scan', '--refresh', '--section', '7', '--directory', weird],
        env: {
          LD_LIBRARY_PATH: '/usr/lib/plexmediaserver/lib',
          PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR: '/var/lib/plexmediaserver/Library/Application Support',
        },
        user: expect.any(String),
        uid: expect.any(Number),
      },
    ]);
    expect(() => readFileSync(join(dir, 'pwned'))).toThrow();
    expect(lines).toContain(`GUI: Scanning section 7 at ${weird}`);
    expect(run.output).toContain('GUI: Scanning');
  });

  it.each([
    ['exit:3', 'exit', /exited with code 3/],
    ['permission', 'permission', /permission denied.*PLEX_USER/],
    ['crashed', 'crash', /crashed.*PLEX MEDIA SCANNER CRASHED/],
    ['signal:SIGSEGV', 'signal', /killed by signal SIGSEGV/],
  ])('turns %s into an error naming the cause', async (failure, reason, message) => {
    const err = await scanSection(fake(), 1, '/movies/A', { baseEnv: envWith({ FAKE_SCANNER_FAIL: failure }) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ScannerError);
    expect((err as ScannerError).reason).toBe(reason);
    expect((err as Error).message).toMatch(message);
  });

  it('says PLEX_SCANNER is wrong when the executable is missing', async () => {
    const err = await runScanner(fake({ scanner: join(dir, 'Plex\\ Media\\ Scanner') }), ['--list']).catch((e: Error) => e);
    expect(err).toBeInstanceOf(ScannerError);
    expect((err as Error).message).toMatch(/does not exist: check PLEX_SCANNER/);
    expect((err as Error).message).toContain(join(dir, 'Plex Media Scanner'));
  });

  it('kills a scanner that runs past its time limit', async () => {
    const sleeper = join(dir, 'sleeper.mjs');
    writeFileSync(sleeper, `#!${process.execPath}\nsetTimeout(() => {}, 60000);\n`);
    chmodSync(sleeper, 0o755);
    const err = await runScanner(fake({ scanner: sleeper }), ['--list'], { timeoutMs: 200 }).catch((e: Error) => e);
    expect((err as ScannerError).reason).toBe('timeout');
  });

  it("the error's last output is cut to 500 characters on a character, never half an emoji", async () => {
    const scanner = program('long-line.mjs', "process.stderr.write('x'.repeat(499) + String.fromCodePoint(0x1f600).repeat(5) + '\\n'); process.exit(3);");
    const err = (await runScanner(fake({ scanner }), ['--list']).catch((e: unknown) => e)) as ScannerError;
    expect(err.reason).toBe('exit');
    expect(err.message).not.toMatch(LONE_SURROGATE);
    expect(err.message.endsWith(` Last output: ${'x'.repeat(499)}`)).toBe(true);
  });

  it('the output kept of a long run is its last 64 KiB, which start on a character', async () => {
    // 131,073 UTF-16 units, one more than the output held before its last 65,536 are kept: they start with half an emoji.
    const scanner = program('long-output.mjs', "process.stdout.write(String.fromCodePoint(0x1f600).repeat(60000) + 'z'.repeat(11073));");
    const { output } = await runScanner(fake({ scanner }), ['--list']);
    expect(output).not.toMatch(LONE_SURROGATE);
    expect(output).toBe(`${'😀'.repeat(27231)}${'z'.repeat(11073)}`);
  });

  it('lists sections from --list', async () => {
    const listed = await listSections(fake(), {
      baseEnv: envWith({ FAKE_SCANNER_SECTIONS: JSON.stringify([[1, 'Movies'], [12, 'TV Shows 4K']]) }),
    });
    expect(listed.sections).toEqual([
      { id: 1, title: 'Movies' },
      { id: 12, title: 'TV Shows 4K' },
    ]);
    expect(runs()[0].argv).toEqual(['--list']);
  });

  it('parses only section lines', () => {
    expect(parseSectionList('Plex says hi\n  1: Movies\n  3: Kids: Cartoons \n\n')).toEqual([
      { id: 1, title: 'Movies' },
      { id: 3, title: 'Kids: Cartoons' },
    ]);
  });
});

describe('waitForExternalScanners', () => {
  it('polls through the injected sleep until the other scanner is gone', async () => {
    const answers = [[{ pid: 10, command: 'Plex Media Scanner --scan' }], [{ pid: 10, command: 'x' }], []];
    const slept: number[] = [];
    const result = await waitForExternalScanners(defaults, {
      find: async () => answers.shift() ?? [],
      sleep: async (ms) => void slept.push(ms),
      pollMs: 60_000,
    });
    expect(result).toEqual({ clear: true, waitedMs: 120_000, running: [] });
    expect(slept).toEqual([60_000, 60_000]);
  });

  it('gives up at the max wait instead of blocking forever', async () => {
    const slept: number[] = [];
    const result = await waitForExternalScanners(defaults, {
      find: async () => [{ pid: 10, command: 'Plex Media Scanner' }],
      sleep: async (ms) => void slept.push(ms),
      pollMs: 60_000,
      maxWaitMs: 150_000,
    });
    expect(result.clear).toBe(false);
    expect(slept).toEqual([60_000, 60_000, 30_000]);
  });

  it('finds scanner processes in /proc by comm (15 chars) or argv[0], never itself', async () => {
    const proc = join(dir, 'proc');
    const add = (pid: number, comm: string, cmdline: string[]): void => {
      mkdirSync(join(proc, String(pid)), { recursive: true });
      writeFileSync(join(proc, String(pid), 'comm'), comm + '\n');
      writeFileSync(join(proc, String(pid), 'cmdline'), cmdline.join('\0') + '\0');
    };
    add(100, 'Plex Media Scan', ['/usr/lib/plexmediaserver/Plex Media Scanner', '--scan']);
    add(101, 'bash', ['bash']);
    add(102, 'Plex Media Scan', ['/usr/lib/plexmediaserver/Plex Media Scanner', '--analyze']);
    add(103, 'Plex Media Serv', ['/usr/lib/plexmediaserver/Plex Media Server']);
    mkdirSync(join(proc, 'self'));
    const found = await findScannerProcesses(defaults, { procRoot: proc, selfPid: 102 });
    expect(found).toEqual([{ pid: 100, command: '/usr/lib/plexmediaserver/Plex Media Scanner --scan' }]);
  });

  it("docker top's complaint is logged by its first 200 characters, never half an emoji", async () => {
    program('docker', "process.stderr.write('x'.repeat(199) + String.fromCodePoint(0x1f600).repeat(5)); process.exit(1);");
    const path = process.env.PATH;
    process.env.PATH = `${dir}:${path}`;
    const log = logCollector();
    try {
      expect(await findScannerProcesses({ ...defaults, useDocker: true, dockerName: 'plex' }, { logger: log.logger })).toEqual([]);
    } finally {
      process.env.PATH = path;
    }
    const { err } = JSON.parse(log.lines.find((l) => l.includes('cannot list processes'))!) as { err: string };
    expect(err).not.toMatch(LONE_SURROGATE);
    expect(err).toBe(`docker top plex exited 1: ${'x'.repeat(199)}`);
  });

  it('asks docker top with USE_DOCKER, and skips the wait when docker cannot answer', async () => {
    const settings = { ...defaults, useDocker: true, dockerName: 'plex' };
    const table =
      'UID   PID    PPID   C   STIME   TTY   TIME       CMD\n' +
      'abc   2001   1      0   10:00   ?     00:00:01   /usr/lib/plexmediaserver/Plex Media Server\n' +
      'abc   2002   2001   3   10:01   ?     00:00:09   /usr/lib/plexmediaserver/Plex Media Scanner --scan --refresh\n';
    expect(await findScannerProcesses(settings, { dockerTop: async () => table })).toEqual([
      { pid: 2002, command: '/usr/lib/plexmediaserver/Plex Media Scanner --scan --refresh' },
    ]);
    expect(
      await findScannerProcesses(settings, {
        dockerTop: async () => {
          throw new Error('no such container');
        },
      }),
    ).toEqual([]);
  });
});
