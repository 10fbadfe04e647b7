// Structured logging (pino) to the console and the log file, with every known secret scrubbed
// from each line before it is written anywhere.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';
import { escapeRawInJson, humanStream, type LogFormat } from './format.js';
import { LogFile } from './file.js';

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
   * Batched writes (the long-running server): the lines of one turn of the event loop go out together in one
   * write at its end, instead of one write per line. Flushed on exit and by flushLogs().
   */
  buffered?: boolean;
  /** Console lines as JSON (default) or for a person (src/log/format.ts); the log file is always JSON. */
  format?: LogFormat;
  /** LOG_MAX_SIZE in bytes (0 = never rotate) and LOG_KEEP rotated files (src/log/file.ts). */
  rotate?: { maxBytes: number; keep: number };
}

/** Maps plex_autoscan's level names (WARN/INFO/DEBUG, any case) to pino's. */
export function normaliseLevel(level: string | undefined): string {
  const l = (level ?? 'info').toLowerCase();
  if (l === 'warning') return 'warn';
  if (['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(l)) return l;
  throw new Error(`unknown log level '${level}': use WARN, INFO or DEBUG`);
}

/** A batch is written before its turn ends once it holds this many characters, so it stays small. */
const BATCH_CHARS = 64 * 1024;

/** Batches with lines not yet written; process.exit() writes them (no turn of the event loop ends then). */
const unwritten = new Set<TurnBatch>();
let exitHooked = false;

/**
 * The server's log destination: the lines logged during one turn of the event loop are joined and written with
 * one synchronous write when the turn ends. A write per turn keeps up with any request rate (one write per
 * 16 KiB chunk, as an asynchronous SonicBoom does, fell behind under load and kept every unwritten line in
 * memory), the file is never behind by more than a turn, and the lines are never re-copied while waiting.
 */
class TurnBatch {
  private lines: string[] = [];
  private chars = 0;
  private scheduled = false;

  constructor(private readonly dest: { write(text: string): unknown; writeLines?(lines: string[]): void }) {
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', () => {
        for (const b of unwritten) b.flushSync();
      });
    }
  }

  write(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length;
    unwritten.add(this);
    if (this.chars >= BATCH_CHARS) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    return true;
  }

  flush(): void {
    if (this.lines.length === 0) return;
    const lines = this.lines;
    this.lines = [];
    this.chars = 0;
    unwritten.delete(this);
    // A rotating file takes the lines one by one (it may rotate between two), in one write when it can.
    if (this.dest.writeLines) this.dest.writeLines(lines);
    else this.dest.write(lines.length === 1 ? lines[0] : lines.join(''));
  }

  flushSync(): void {
    this.flush();
  }
}

/**
 * Synchronous SonicBoom underneath (pino's own default for stdout): a regular file takes a turn's lines in
 * microseconds. When stdout is a pipe whose reader falls behind, SonicBoom waits and retries, which holds the
 * loop instead of piling lines up in memory; a closed pipe is given up quietly.
 */
const batched = (dest: number) => new TurnBatch(pino.destination({ dest, sync: true }));

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

let stampMs = -1;
let stamp = '';
/** pino's ISO timestamp, formatted once per millisecond: a busy server writes many lines in one. */
export function isoTime(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = `,"time":"${new Date(now).toISOString()}"`;
  }
  return stamp;
}

export function createLogger(opts: LogOptions): Logger {
  const scrub = scrubber(opts.secrets);
  const streams: pino.StreamEntry[] = [];
  const level = normaliseLevel(opts.level) as pino.Level;
  const toStdout = opts.console === undefined || opts.console === process.stdout;
  if (opts.console !== null) {
    const out = toStdout && opts.buffered ? batched(1) : (opts.console ?? process.stdout);
    streams.push({ level, stream: opts.format === 'human' ? humanStream(out) : out });
  }
  if (opts.file) {
    mkdirSync(dirname(opts.file), { recursive: true });
    // Rotated by size (src/log/file.ts); in the server, one write per turn of the event loop.
    const file = new LogFile(opts.file, { maxBytes: opts.rotate?.maxBytes ?? 0, keep: opts.rotate?.keep ?? 0, bufferBytes: opts.buffered ? 64 * 1024 : 0 });
    streams.push({ level, stream: opts.buffered ? new TurnBatch(file) : file });
  }
  return pino(
    {
      level,
      base: undefined,
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Secrets out, then what JSON leaves raw and a terminal acts on escaped: the file's lines as the console's.
      hooks: { streamWrite: (line) => escapeRawInJson(scrub(line)) },
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
