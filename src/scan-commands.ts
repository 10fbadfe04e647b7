// RUN_COMMAND_BEFORE_SCAN / RUN_COMMAND_AFTER_SCAN: how the user's programs around every scan, of every target
// kind, are split into words and run. The processor runs the first before each delivery (processor/delivery.ts),
// the follow-up stage the second once a scan ended (follow/stage.ts); both sit above this file.
import { execFile } from 'node:child_process';
import type { Logger } from './log/logger.js';
import { keepEnd } from './text-cut.js';

/**
 * Splits a configured command into argv the way a POSIX shell would split words, honouring '…', "…" and
 * backslash escapes, but expanding nothing: the command is never given to a shell.
 */
export function splitCommand(command: string): string[] {
  const args: string[] = [];
  let current = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i];
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else current += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && i + 1 < command.length && '"\\$`'.includes(command[i + 1])) current += command[++i];
      else current += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < command.length) {
      current += command[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) args.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in command: ${command}`);
  if (inWord) args.push(current);
  return args;
}

/** Unquoted shell syntax that would have meant something to plex_autoscan's shell=True, but not here. */
export function shellSyntaxIn(command: string): string | undefined {
  const stripped = command.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, '');
  return /(\|\||&&|[|;<>`]|\$\()/.exec(stripped)?.[1];
}

export interface CommandEnv {
  SCANRELAY_PATH: string;
  SCANRELAY_FOLDER: string;
  SCANRELAY_SECTION: string;
  SCANRELAY_EVENT: string;
  SCANRELAY_TARGET: string;
  SCANRELAY_CONFIRMATION?: string;
}

export interface CommandResult {
  code: number | null;
  signal?: string;
  error?: string;
  output: string;
}

export type CommandRunner = (argv: string[], env: Record<string, string>, timeoutMs: number) => Promise<CommandResult>;

export const execCommand: CommandRunner = (argv, env, timeoutMs) =>
  new Promise((resolve) => {
    execFile(argv[0], argv.slice(1), { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
      const output = `${stdout}${stderr}`.trim();
      if (!err) return resolve({ code: 0, output });
      const e = err as NodeJS.ErrnoException & { code?: number | string; signal?: string };
      if (typeof e.code === 'number') return resolve({ code: e.code, signal: e.signal ?? undefined, output });
      resolve({ code: null, signal: e.signal ?? undefined, error: e.code ? `${e.code}: ${e.message}` : e.message, output });
    });
  });

/**
 * RUN_COMMAND_BEFORE_SCAN / RUN_COMMAND_AFTER_SCAN. The path travels in the environment, so a folder named
 * `$(rm -rf ~)` is only ever data. A failing command is logged and does not stop the scan (plex_autoscan's rule).
 */
export async function runScanCommand(
  which: 'before' | 'after',
  command: string,
  env: CommandEnv,
  logger: Logger,
  run: CommandRunner = execCommand,
  timeoutMs = 10 * 60_000,
): Promise<CommandResult | undefined> {
  if (!command.trim()) return undefined;
  const key = which === 'before' ? 'RUN_COMMAND_BEFORE_SCAN' : 'RUN_COMMAND_AFTER_SCAN';
  let argv: string[];
  try {
    argv = splitCommand(command);
  } catch (err) {
    logger.error(`${key} is not a usable command: ${(err as Error).message}`);
    return undefined;
  }
  if (argv.length === 0) return undefined;
  const syntax = shellSyntaxIn(command);
  if (syntax) {
    logger.warn(
      `${key} contains '${syntax}', which is passed to '${argv[0]}' as a plain argument: scanrelay runs no shell. Use "sh -c '…'" and read the path from $SCANRELAY_PATH if you need one.`,
    );
  }
  const vars: Record<string, string> = { ...env } as unknown as Record<string, string>;
  for (const k of Object.keys(vars)) if (vars[k] === undefined) delete vars[k];
  logger.info({ command: argv[0], path: env.SCANRELAY_PATH }, `Running external command (${key}): ${argv[0]}`);
  const result = await run(argv, vars, timeoutMs);
  if (result.code === 0) {
    logger.info({ command: argv[0] }, `Finished running external command (${key}): exit status 0.`);
  } else {
    const why = result.error ?? (result.signal ? `killed by ${result.signal}` : `exit status ${result.code}`);
    logger.warn({ command: argv[0], output: keepEnd(result.output, 2000) }, `External command (${key}) failed: ${why}.`);
  }
  return result;
}
