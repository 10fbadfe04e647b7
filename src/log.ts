// Structured logging (pino) to the console and the log file, with every known secret scrubbed
// from each line before it is written anywhere.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';
import { LogFile } from './log-file.js';

export type { Logger };

export interface LogOptions {
  level: string;
  /** Log file path; omitted = console only. */
  file?: string;
  /** Strings that must never appear in output (SERVER_PASS, tokens). Short ones (<4 chars) are ignored. */
  secrets?: string[];
  /** Where console lines go (tests pass a collector). Defaults to stdout. */
  console?: NodeJS.WritableStream | null;
  /**
   * Buffered writes (the long-running server): lines logged while a write is under way go out together in
   * the next one, instead of one blocking write per line. Flushed on exit and by flushLogs().
   */
  buffered?: boolean;
  /** LOG_MAX_SIZE in bytes (0 = never rotate) and LOG_KEEP rotated files (src/log-file.ts). */
  rotate?: { maxBytes: number; keep: number };
}

/** Maps plex_autoscan's level names (WARN/INFO/DEBUG, any case) to pino's. */
export function normaliseLevel(level: string | undefined): string {
  const l = (level ?? 'info').toLowerCase();
  if (l === 'warning') return 'warn';
  if (['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(l)) return l;
  throw new Error(`unknown log level '${level}': use WARN, INFO or DEBUG`);
}

/** Buffered lines are written once this many bytes wait, and at least every FLUSH_MS. */
const BUFFER_BYTES = 8 * 1024;
const FLUSH_MS = 200;

function buffer<S extends { flush: () => void; on: (e: string, f: () => void) => unknown }>(stream: S): S {
  // A quiet service still shows its lines within FLUSH_MS; the timer never keeps the process alive.
  const timer = setInterval(() => {
    try {
      stream.flush();
    } catch {
      // Not open yet: the next tick flushes.
    }
  }, FLUSH_MS);
  timer.unref();
  stream.on('close', () => clearInterval(timer));
  return stream;
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
  const toStdout = opts.console === undefined || opts.console === process.stdout;
  if (opts.console !== null) {
    streams.push({ level, stream: toStdout && opts.buffered ? buffer(pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES })) : (opts.console ?? process.stdout) });
  }
  if (opts.file) {
    mkdirSync(dirname(opts.file), { recursive: true });
    const file = new LogFile(opts.file, { maxBytes: opts.rotate?.maxBytes ?? 0, keep: opts.rotate?.keep ?? 0, bufferBytes: opts.buffered ? BUFFER_BYTES : 0 });
    streams.push({ level, stream: opts.buffered ? buffer(file) : file });
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

/** Writes out every buffered line now (before printing to the console directly, so the order holds). */
export function flushLogs(logger: Logger): void {
  const stream = (logger as unknown as Record<symbol, { flushSync?: () => void }>)[pino.symbols.streamSym];
  try {
    stream?.flushSync?.();
  } catch {
    // A stream still opening its file has nothing to flush yet.
  }
}

/** A logger that writes nowhere; for code paths that take an optional logger. */
export const silentLogger: Logger = pino({ level: 'silent' });
