// The log file, rotated by size: past LOG_MAX_SIZE it becomes <file>.1 (older ones shift up to <file>.<LOG_KEEP>)
// and a new file starts, so the log never holds more than about LOG_MAX_SIZE × (LOG_KEEP + 1) bytes.
import { EventEmitter } from 'node:events';
import { PRIVATE_MODE } from '../private-files.js';
import { closeSync, fstatSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

export interface LogFileOptions {
  /** Rotate before the file would pass this many bytes; 0 = never (logrotate with copytruncate owns the file). */
  maxBytes: number;
  /** Rotated files kept: <file>.1 (newest) to <file>.<keep>. */
  keep: number;
  /**
   * Lines wait in memory until this many bytes are pending, then go out in one write (the server; its caller
   * also flushes on a timer). 0 = each line is written at once (commands).
   */
  bufferBytes: number;
}

const UNITS: Record<string, number> = { '': 1, B: 1, K: 1024, KB: 1024, M: 1024 ** 2, MB: 1024 ** 2, G: 1024 ** 3, GB: 1024 ** 3 };
export const SIZE_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*(B|K|KB|M|MB|G|GB)?\s*$/i;

/** "10MB", "512K", "1.5 GB" or a plain number of bytes (1 K = 1024 bytes). */
export function sizeInBytes(size: number | string): number {
  if (typeof size === 'number') return Math.max(0, Math.floor(size));
  const m = SIZE_PATTERN.exec(size);
  if (!m) throw new Error(`'${size}' is not a size: write it like "10MB", "512K" or a number of bytes`);
  return Math.floor(Number(m[1]) * UNITS[(m[2] ?? '').toUpperCase()]);
}

/** Every open log file writes what it holds when the process exits, however it exits. */
const open = new Set<LogFile>();
let exitHook = false;

/**
 * A pino destination that appends to `path` and rotates it by size. Writes are synchronous and batched: the
 * order of lines is the order they were logged, across rotations too, and nothing waits in a background write.
 */
export class LogFile extends EventEmitter {
  private fd = -1;
  private size = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  private warned = false;

  constructor(
    readonly path: string,
    private readonly opts: LogFileOptions,
  ) {
    super();
    this.open();
    open.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => open.forEach((f) => f.flushSync()));
    }
  }

  private open(): void {
    // Opened now, not lazily: a line logged just before exit must find the file open.
    this.fd = openSync(this.path, 'a', PRIVATE_MODE);
    this.size = fstatSync(this.fd).size;
  }

  write(line: string): boolean {
    const bytes = Buffer.byteLength(line);
    if (this.opts.maxBytes > 0 && this.size > 0 && this.size + bytes > this.opts.maxBytes) {
      this.flushSync();
      this.rotate();
    }
    this.size += bytes;
    this.pending.push(line);
    this.pendingBytes += bytes;
    if (this.pendingBytes >= this.opts.bufferBytes) this.flushSync();
    return true;
  }

  /** A turn's lines (src/log/logger.ts): each counted against LOG_MAX_SIZE, then written together. */
  writeLines(lines: string[]): void {
    for (const line of lines) this.write(line);
    this.flushSync();
  }

  /** <file>.N-1 → <file>.N, …, <file> → <file>.1, then a new <file>. */
  rotate(): void {
    try {
      rmSync(`${this.path}.${this.opts.keep}`, { force: true });
      for (let i = this.opts.keep - 1; i >= 1; i--) {
        try {
          renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      if (this.opts.keep > 0) renameSync(this.path, `${this.path}.1`);
      else rmSync(this.path, { force: true });
      const old = this.fd;
      this.open();
      closeSync(old);
    } catch (err) {
      // A log that cannot rotate keeps growing rather than losing lines; it tries again after LOG_MAX_SIZE more.
      this.size = 0;
      this.problem('rotate', err);
    }
  }

  flush(): void {
    this.flushSync();
  }

  flushSync(): void {
    if (this.pending.length === 0 || this.fd < 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    try {
      writeSync(this.fd, text);
    } catch (err) {
      // A full or read-only disk: these lines are lost, the service keeps running, later lines try again.
      this.problem('write', err);
    }
  }

  end(): void {
    this.flushSync();
    open.delete(this);
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.emit('close');
  }

  /** Nothing else can report a log that cannot be written: say it once on stderr. */
  private problem(what: string, err: unknown): void {
    if (this.warned) return;
    this.warned = true;
    process.stderr.write(`scanrelay: cannot ${what} the log file '${this.path}': ${(err as Error).message}. Free disk space or fix its permissions.\n`);
  }
}
