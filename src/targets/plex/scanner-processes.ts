// Finds Plex Media Scanner processes other than ours (on this host through /proc, in the Plex container through
// `docker top`) and waits, bounded, while one runs: PLEX_WAIT_FOR_EXTERNAL_SCANNERS.
import { spawn } from 'node:child_process';
import { systemClock } from '../../clock.js';
import { readdir, readFile } from '../../file-system.js';
import type { Logger } from '../../log/logger.js';
import { baseName } from '../../paths/folder.js';
import { keepStart } from '../../text-cut.js';
import { unescapeShellPath, type ScannerSettings } from './scanner.js';

export interface ScannerProcess {
  pid: number;
  command: string;
}

export interface ProcessProbe {
  /** Where to read processes from; tests point it at a fake tree. */
  procRoot?: string;
  /** Our own pid, never counted. */
  selfPid?: number;
  /** Runs `docker top <name>`; defaults to the docker CLI. */
  dockerTop?: (name: string) => Promise<string>;
  logger?: Logger;
}

/** Scanner processes other than ours: from /proc on this host, or from `docker top` inside the container. */
export async function findScannerProcesses(settings: ScannerSettings, probe: ProcessProbe = {}): Promise<ScannerProcess[]> {
  const name = baseName(unescapeShellPath(settings.scanner)).toLowerCase();
  if (!name) return [];
  if (settings.useDocker) {
    let table: string;
    try {
      table = await (probe.dockerTop ?? dockerTop)(settings.dockerName);
    } catch (err) {
      // Not knowing is no reason to hold every scan back: skip the wait and say so.
      probe.logger?.warn(
        { err: (err as Error).message, container: settings.dockerName },
        'cannot list processes in the Plex container; not waiting for external scanners',
      );
      return [];
    }
    return parseDockerTop(table).filter((p) => p.command.toLowerCase().includes(name));
  }
  return procScannerProcesses(name, probe.procRoot ?? '/proc', probe.selfPid ?? process.pid);
}

async function procScannerProcesses(name: string, procRoot: string, selfPid: number): Promise<ScannerProcess[]> {
  let entries: string[];
  try {
    entries = await readdir(procRoot);
  } catch {
    return []; // no /proc (macOS, Windows): nothing to wait for
  }
  // The kernel truncates comm to 15 characters ("Plex Media Scan").
  const comm15 = name.slice(0, 15);
  const found: ScannerProcess[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === selfPid) continue;
    try {
      const comm = (await readFile(`${procRoot}/${entry}/comm`, 'utf8')).trim().toLowerCase();
      const argv = (await readFile(`${procRoot}/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
      const argv0 = (argv[0] ? baseName(argv[0]) : '').toLowerCase();
      if (comm === name || comm === comm15 || argv0 === name) found.push({ pid, command: argv.join(' ') || comm });
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** `docker top` prints a header row then ps columns; CMD is the last and may contain spaces. */
function parseDockerTop(table: string): ScannerProcess[] {
  const lines = table.split(/\r?\n/).filter((l) => l.trim());
  if (lines.length < 2) return [];
  const header = lines[0];
  const pidCol = header.split(/\s+/).findIndex((h) => h === 'PID');
  const cmdAt = Math.max(header.indexOf('CMD'), header.indexOf('COMMAND'));
  return lines.slice(1).map((line) => {
    const pid = Number(line.trim().split(/\s+/)[pidCol >= 0 ? pidCol : 1]);
    const command = cmdAt >= 0 ? line.slice(cmdAt).trim() : line.trim();
    return { pid, command };
  });
}

function dockerTop(name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['top', name], { stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`docker top ${name} exited ${code}: ${keepStart(err.trim(), 200)}`)),
    );
  });
}

export interface WaitOptions extends ProcessProbe {
  sleep?: (ms: number) => Promise<void>;
  /** Between looks; plex_autoscan used 60 s. */
  pollMs?: number;
  /** Give up after this long so one busy scanner cannot hold a target forever. */
  maxWaitMs?: number;
  /** Replaces the process lookup entirely (tests). */
  find?: () => Promise<ScannerProcess[]>;
}

export interface WaitResult {
  /** True when no other scanner runs (any more); false when we gave up at maxWaitMs. */
  clear: boolean;
  waitedMs: number;
  running: ScannerProcess[];
}

/** PLEX_WAIT_FOR_EXTERNAL_SCANNERS: wait, bounded, while another scanner process runs. */
export async function waitForExternalScanners(settings: ScannerSettings, opts: WaitOptions = {}): Promise<WaitResult> {
  const pollMs = opts.pollMs ?? 60_000;
  const maxWaitMs = opts.maxWaitMs ?? 30 * 60_000;
  const sleep = opts.sleep ?? systemClock.sleep;
  const find = opts.find ?? (() => findScannerProcesses(settings, opts));
  let waitedMs = 0;
  for (;;) {
    const running = await find();
    if (running.length === 0) return { clear: true, waitedMs, running };
    if (waitedMs >= maxWaitMs) return { clear: false, waitedMs, running };
    opts.logger?.info(
      { pids: running.map((p) => p.pid), commands: running.map((p) => p.command) },
      `another Plex Media Scanner is running; checking again in ${Math.round(pollMs / 1000)} s`,
    );
    const step = Math.min(pollMs, maxWaitMs - waitedMs);
    await sleep(step);
    waitedMs += step;
  }
}
