// The "command" kind: runs a program once per folder, with the folder and file in its environment (no shell). It
// takes any folder.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { optional, positiveSeconds, stringList } from '../value-rules.js';
import { access } from '../file-system.js';
import type { ScanContext, ScanOutcome } from '../scan.js';
import { keepStart } from '../text-cut.js';
import { targetKind, type Capabilities } from './kind.js';

export interface CommandTargetOptions {
  name: string;
  /** Program and arguments, e.g. ["/usr/local/bin/notify", "--quiet"]. */
  argv: string[];
  timeoutMs?: number;
}

/** What the program finds in its environment. */
export function commandEnvironment(name: string, folder: string, context: ScanContext): Record<string, string> {
  return {
    SCANRELAY_TARGET: name,
    SCANRELAY_FOLDER: folder,
    SCANRELAY_PATH: context.file ?? folder,
    SCANRELAY_FILE: context.file ?? '',
    SCANRELAY_EVENT: context.event,
    SCANRELAY_SOURCE: context.source,
    SCANRELAY_DELETED: context.deleted ? '1' : '0',
  };
}

export function commandTarget(opts: CommandTargetOptions): Capabilities {
  const [program, ...args] = opts.argv;
  const timeoutMs = opts.timeoutMs ?? 600_000;
  return {
    kind: 'command',
    scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
      const env = { ...process.env, ...commandEnvironment(opts.name, folder, context) };
      return new Promise((resolve) => {
        execFile(program, args, { env, timeout: timeoutMs, maxBuffer: 1024 * 1024 }, (err, _stdout, stderr) => {
          if (!err) return resolve({ status: 'scanned', detail: `'${program}' exited 0` });
          const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number; signal?: string };
          if (e.code === 'ENOENT' || e.code === 'EACCES') {
            return resolve({ status: 'retry', error: `command target '${opts.name}': cannot run '${program}' (${e.code}): check COMMAND`, targetDown: true });
          }
          const said = keepStart(String(stderr ?? '').trim().split('\n').slice(-1)[0] ?? '', 200);
          const how = e.killed ? `was stopped after ${timeoutMs / 1000} s (TIMEOUT)` : typeof e.code === 'number' ? `exited ${e.code}` : `ended by ${e.signal ?? e.message}`;
          resolve({ status: 'retry', error: `command target '${opts.name}': '${program}' ${how}${said ? `: ${said}` : ''}`, targetDown: false });
        });
      });
    },
    async available() {
      // A bare name is looked up on PATH, as execFile does.
      const candidates = program.includes('/') ? [program] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, program));
      for (const candidate of candidates) {
        if (await access(candidate, constants.X_OK).then(() => true, () => false)) return { ok: true };
      }
      return { ok: false, error: `'${program}' is not an executable file${program.includes('/') ? '' : ' on PATH'}: check COMMAND` };
    },
  };
}

export const command = targetKind({
  keys: () => ({
    /** The program and its arguments (no shell). */
    COMMAND: optional(stringList(true)),
    /** How long it may run. */
    TIMEOUT: optional(positiveSeconds()),
  }),
  requires: { COMMAND: 'the program to run and its arguments, e.g. ["/usr/local/bin/notify", "--quiet"]' },
  build: (entry) => commandTarget({ name: entry.NAME, argv: entry.COMMAND ?? [], timeoutMs: entry.TIMEOUT === undefined ? undefined : entry.TIMEOUT * 1000 }),
});
