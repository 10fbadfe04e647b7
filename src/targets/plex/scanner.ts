// Runs Plex's own "Plex Media Scanner" executable (docs/configuration.md, PLEX_SCANNER): builds its argv and
// environment for the plain, sudo and docker routes, runs it without a shell, and turns the ways it fails
// quietly into errors. Other scanner processes are looked for in scanner-processes.ts.
import { spawn } from 'node:child_process';
import type { Logger } from '../../log/logger.js';
import { baseName } from '../../paths/folder.js';
import { keepEnd, keepStart } from '../../text-cut.js';

export interface ScannerSettings {
  /** PLEX_SCANNER: path of the scanner executable (inside the container when useDocker). */
  scanner: string;
  /** PLEX_SUPPORT_DIR: exported as PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR (not with docker). */
  supportDir: string;
  /** PLEX_LD_LIBRARY_PATH: exported as LD_LIBRARY_PATH. */
  ldLibraryPath: string;
  /** PLEX_USER: who the scanner runs as through sudo or docker exec. */
  user: string;
  useSudo: boolean;
  useDocker: boolean;
  dockerName: string;
  waitForExternalScanners: boolean;
}

export interface ScannerInvocation {
  /** The executable to start (the scanner itself, or sudo / docker). */
  file: string;
  args: string[];
  /** Variables to add to this process's environment when starting `file`. */
  env: Record<string, string>;
}

/**
 * plex_autoscan's defaults escape spaces with backslashes ("Plex\ Media\ Scanner") because they were pasted
 * into a shell; with no shell in between those backslashes would become part of the file name.
 */
export function unescapeShellPath(path: string): string {
  return path.replace(/\\ /g, ' ');
}

/** The program and argv that run the scanner with `args`, per route (docker beats sudo, as in plex_autoscan). */
export function scannerInvocation(settings: ScannerSettings, args: string[]): ScannerInvocation {
  const scanner = unescapeShellPath(settings.scanner);
  const ldLibraryPath = unescapeShellPath(settings.ldLibraryPath ?? '');
  const supportDir = unescapeShellPath(settings.supportDir ?? '');

  if (settings.useDocker) {
    // The container already has Plex's support dir in its environment; plex_autoscan did not override it.
    const env = ldLibraryPath ? ['-e', `LD_LIBRARY_PATH=${ldLibraryPath}`] : [];
    return {
      file: 'docker',
      args: ['exec', '-u', settings.user, ...env, settings.dockerName, scanner, ...args],
      env: {},
    };
  }

  const assignments: Record<string, string> = {};
  if (ldLibraryPath) assignments.LD_LIBRARY_PATH = ldLibraryPath;
  if (supportDir) assignments.PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR = supportDir;

  if (settings.useSudo) {
    // sudo resets the environment, so the variables travel on the command line through env(1).
    const pairs = Object.entries(assignments).map(([k, v]) => `${k}=${v}`);
    return { file: 'sudo', args: ['-u', settings.user, 'env', ...pairs, scanner, ...args], env: {} };
  }
  return { file: scanner, args: [...args], env: assignments };
}

/** The scanner ran but did not do its job; `message` names the cause and what to do about it. */
export class ScannerError extends Error {
  constructor(
    message: string,
    readonly reason: 'not-found' | 'exit' | 'signal' | 'permission' | 'crash' | 'timeout' | 'start',
    readonly output: string,
  ) {
    super(message);
    this.name = 'ScannerError';
  }
}

export interface RunOptions {
  /** Kill the scanner after this long (0 = never). A hung scanner must not hold its target forever. */
  timeoutMs?: number;
  /** Each non-empty output line as it arrives (stdout and stderr merged, as plex_autoscan logged them). */
  onLine?: (line: string) => void;
  logger?: Logger;
  /** Base environment; defaults to this process's. */
  baseEnv?: NodeJS.ProcessEnv;
}

export interface ScannerRun {
  output: string;
  invocation: ScannerInvocation;
}

const OUTPUT_KEEP = 64 * 1024;

/** Runs the scanner with `args` and resolves with its output; rejects with a ScannerError on any failure. */
export function runScanner(settings: ScannerSettings, args: string[], opts: RunOptions = {}): Promise<ScannerRun> {
  const invocation = scannerInvocation(settings, args);
  const scannerName = baseName(unescapeShellPath(settings.scanner)) || 'Plex Media Scanner';
  const route = settings.useDocker ? `docker exec in '${settings.dockerName}'` : settings.useSudo ? 'sudo' : 'direct';
  opts.logger?.debug({ file: invocation.file, args: invocation.args, route }, 'running Plex Media Scanner');

  return new Promise<ScannerRun>((resolve, reject) => {
    let output = '';
    let pending = '';
    let timedOut = false;
    const keep = (text: string): void => {
      output += text;
      if (output.length > OUTPUT_KEEP * 2) output = keepEnd(output, OUTPUT_KEEP);
      pending += text;
      const lines = pending.split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) opts.onLine?.(line);
    };

    const child = spawn(invocation.file, invocation.args, {
      env: { ...(opts.baseEnv ?? process.env), ...invocation.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
    });
    child.stdout.setEncoding('utf8').on('data', keep);
    child.stderr.setEncoding('utf8').on('data', keep);

    const timer =
      opts.timeoutMs && opts.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, opts.timeoutMs)
        : undefined;

    child.on('error', (err: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      if (err.code === 'ENOENT') {
        const what =
          invocation.file === 'docker'
            ? "'docker' was not found on PATH: install the docker CLI or set USE_DOCKER to false"
            : invocation.file === 'sudo'
              ? "'sudo' was not found on PATH: install sudo or set USE_SUDO to false"
              : `the scanner '${invocation.file}' does not exist: check PLEX_SCANNER`;
        reject(new ScannerError(`${scannerName} could not start: ${what}`, 'not-found', output));
      } else if (err.code === 'EACCES') {
        reject(
          new ScannerError(
            `${scannerName} could not start: '${invocation.file}' is not executable by this user (EACCES): check PLEX_SCANNER and its permissions`,
            'permission',
            output,
          ),
        );
      } else {
        reject(new ScannerError(`${scannerName} could not start: ${err.message}`, 'start', output));
      }
    });

    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (pending.trim()) opts.onLine?.(pending);
      const failure = judgeRun({ code, signal, output, timedOut, scannerName, route, timeoutMs: opts.timeoutMs });
      if (failure) reject(failure);
      else resolve({ output, invocation });
    });
  });
}

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
  scannerName: string;
  route: string;
  timeoutMs?: number;
}

/** Each of these is a failure, although the scanner may exit 0 (plex_autoscan logged "Finished scan!" for all). */
function judgeRun(r: Finished): ScannerError | undefined {
  const tail = lastLines(r.output, 3);
  const said = tail ? ` Last output: ${tail}` : '';
  if (r.timedOut) {
    return new ScannerError(
      `${r.scannerName} was still running after ${Math.round((r.timeoutMs ?? 0) / 1000)} s and was killed; the scan may be incomplete.${said}`,
      'timeout',
      r.output,
    );
  }
  if (/PLEX MEDIA SCANNER CRASHED/i.test(r.output)) {
    return new ScannerError(
      `${r.scannerName} crashed (it printed "PLEX MEDIA SCANNER CRASHED"); see the crash report it names and the Plex Media Scanner logs under PLEX_SUPPORT_DIR.${said}`,
      'crash',
      r.output,
    );
  }
  if (/permission denied/i.test(r.output)) {
    return new ScannerError(
      `${r.scannerName} reported "permission denied" (route: ${r.route}): run it as the Plex user (PLEX_USER with USE_SUDO or USE_DOCKER), and check that user can read the folder and write PLEX_SUPPORT_DIR.${said}`,
      'permission',
      r.output,
    );
  }
  if (r.signal) {
    return new ScannerError(
      `${r.scannerName} was killed by signal ${r.signal} (crash or out of memory); see the Plex Media Scanner logs under PLEX_SUPPORT_DIR.${said}`,
      'signal',
      r.output,
    );
  }
  if (r.code !== 0) {
    const hint =
      r.route === 'sudo'
        ? ' With USE_SUDO the user running scanrelay needs passwordless sudo to PLEX_USER.'
        : r.route.startsWith('docker')
          ? ' Check DOCKER_NAME, PLEX_USER and that PLEX_SCANNER is the path inside the container.'
          : ' Check PLEX_SCANNER, PLEX_LD_LIBRARY_PATH and PLEX_SUPPORT_DIR.';
    return new ScannerError(`${r.scannerName} exited with code ${r.code} (route: ${r.route}).${hint}${said}`, 'exit', r.output);
  }
  return undefined;
}

function lastLines(output: string, n: number): string {
  const lines = output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-n);
  return keepStart(lines.join(' | '), 500);
}

/** `--scan --refresh --section <id> --directory <path>`: the path travels as one argv element, untouched. */
export function scanSection(
  settings: ScannerSettings,
  sectionId: number | string,
  directory: string,
  opts: RunOptions = {},
): Promise<ScannerRun> {
  return runScanner(settings, ['--scan', '--refresh', '--section', String(sectionId), '--directory', directory], opts);
}

export interface ScannerSection {
  id: number;
  title: string;
}

/** Lines like "  1: Movies" from `--list` (the exact format is unverified; other lines are ignored). */
export function parseSectionList(output: string): ScannerSection[] {
  const sections: ScannerSection[] = [];
  for (const line of output.split(/\r?\n/)) {
    const m = /^\s*(\d+)\s*:\s*(.+?)\s*$/.exec(line);
    if (m) sections.push({ id: Number(m[1]), title: m[2] });
  }
  return sections;
}

export async function listSections(
  settings: ScannerSettings,
  opts: RunOptions = {},
): Promise<{ sections: ScannerSection[]; output: string }> {
  const run = await runScanner(settings, ['--list'], opts);
  return { sections: parseSectionList(run.output), output: run.output };
}
