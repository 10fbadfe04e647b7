// Structured logging (pino) to the console and the log file, with every known secret scrubbed
// from each line before it is written anywhere.
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';

export type { Logger };

export interface LogOptions {
  level: string;
  /** Log file path; omitted = console only. */
  file?: string;
  /** Strings that must never appear in output (SERVER_PASS, tokens). Short ones (<4 chars) are ignored. */
  secrets?: string[];
  /** Where console lines go (tests pass a collector). Defaults to stdout. */
  console?: NodeJS.WritableStream | null;
}

/** Maps plex_autoscan's level names (WARN/INFO/DEBUG, any case) to pino's. */
export function normaliseLevel(level: string | undefined): string {
  const l = (level ?? 'info').toLowerCase();
  if (l === 'warning') return 'warn';
  if (['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(l)) return l;
  throw new Error(`unknown log level '${level}': use WARN, INFO or DEBUG`);
}

export function scrubber(secrets: string[] = []): (line: string) => string {
  const list = [...new Set(secrets.filter((s) => typeof s === 'string' && s.length >= 4))].sort(
    (a, b) => b.length - a.length,
  );
  if (list.length === 0) return (line) => line;
  return (line) => {
    let out = line;
    for (const s of list) if (out.includes(s)) out = out.split(s).join('***');
    return out;
  };
}

export function createLogger(opts: LogOptions): Logger {
  const scrub = scrubber(opts.secrets);
  const streams: pino.StreamEntry[] = [];
  const level = normaliseLevel(opts.level) as pino.Level;
  if (opts.console !== null) streams.push({ level, stream: opts.console ?? process.stdout });
  if (opts.file) {
    mkdirSync(dirname(opts.file), { recursive: true });
    streams.push({ level, stream: createWriteStream(opts.file, { flags: 'a' }) });
  }
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: scrub },
    },
    pino.multistream(streams),
  );
}

/** A logger that writes nowhere; for code paths that take an optional logger. */
export const silentLogger: Logger = pino({ level: 'silent' });
