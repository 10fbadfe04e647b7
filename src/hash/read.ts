// The one read of a file for hash=: opened without following a link, only a regular file of at most
// HASH_MAX_BYTES, read within a time budget and stopped at once when the service stops, at most READS_AT_ONCE files
// at a time. It answers whether the file has the SHA-256 asked for: the hash it computes never leaves this file,
// so no log line, history line or notification can carry the digest of a file.
import { createHash } from 'node:crypto';
import { close, constants, createReadStream, type Stats } from 'node:fs';
import { timeoutSignal, type Clock } from '../clock.js';
import { fstat, open, stat } from '../file-system.js';

/** The largest file hash= reads: a 4K remux fits; a disk image or a device never does. */
export const HASH_MAX_BYTES = 64 * 1024 ** 3;
/** How long one read may take before it counts as a failed check (64 GiB at about 110 MB/s). */
export const HASH_READ_BUDGET_MS = 10 * 60_000;
/** Files read at once, whatever the number of requests held: the rest wait their turn. */
export const READS_AT_ONCE = 2;

export type FileVerdict =
  | { state: 'match' | 'differs' | 'missing' | 'too-slow' | 'stopped' }
  | { state: 'refused'; rule: 'not-a-file' | 'too-large' | 'unreadable'; reason: string };

export interface HashReaderOptions {
  clock: Clock;
  maxBytes?: number;
  budgetMs?: number;
  atOnce?: number;
}

// Never blocks on a FIFO swapped in after the look (O_NONBLOCK), never follows a link swapped in (O_NOFOLLOW).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const CHUNK = 1024 * 1024;

export class HashReader {
  readonly maxBytes: number;
  readonly budgetMs: number;
  private reading = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly opts: HashReaderOptions) {
    this.maxBytes = opts.maxBytes ?? HASH_MAX_BYTES;
    this.budgetMs = opts.budgetMs ?? HASH_READ_BUDGET_MS;
  }

  /** A look without reading: is `file` (links resolved) something hash= may read, or why not; undefined when it may. */
  async refusal(file: string): Promise<Extract<FileVerdict, { state: 'refused' }> | undefined> {
    try {
      return refusalOf(await stat(file), this.maxBytes);
    } catch {
      return undefined; // gone since it was resolved: the checks wait for it
    }
  }

  /** Whether `file` (links resolved) has the SHA-256 `expected` (lower-case hex); `stop` ends a wait or a read at once. */
  async matches(file: string, expected: string, stop: AbortSignal): Promise<FileVerdict> {
    if (!(await this.turn(stop))) return { state: 'stopped' };
    try {
      return await this.read(file, expected, stop);
    } finally {
      this.release();
    }
  }

  private async read(file: string, expected: string, stop: AbortSignal): Promise<FileVerdict> {
    let fd: number;
    try {
      fd = await open(file, OPEN_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'an error';
      if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'missing' };
      return { state: 'refused', rule: 'unreadable', reason: `'${file}' could not be opened (${code === 'ELOOP' ? 'it became a symbolic link' : code})` };
    }
    let stats: Stats;
    try {
      stats = await fstat(fd);
    } catch (err) {
      close(fd, () => {});
      return { state: 'refused', rule: 'unreadable', reason: `'${file}' could not be looked at (${(err as NodeJS.ErrnoException).code})` };
    }
    const refused = refusalOf(stats, this.maxBytes);
    if (refused) {
      close(fd, () => {});
      return refused;
    }
    const budget = timeoutSignal(this.opts.clock, this.budgetMs);
    return new Promise((resolve) => {
      const hash = createHash('sha256');
      // Bounded by maxBytes even if the file grows while it is read; the stream closes the descriptor.
      const stream = createReadStream(file, { fd, start: 0, end: this.maxBytes - 1, highWaterMark: CHUNK });
      const end = (verdict: FileVerdict) => {
        stop.removeEventListener('abort', abort);
        budget.removeEventListener('abort', abort);
        stream.destroy();
        resolve(verdict);
      };
      const abort = () => end({ state: stop.aborted ? 'stopped' : 'too-slow' });
      if (stop.aborted || budget.aborted) return abort();
      stop.addEventListener('abort', abort, { once: true });
      budget.addEventListener('abort', abort, { once: true });
      stream
        .on('data', (chunk) => hash.update(chunk))
        .on('end', () => end({ state: hash.digest('hex') === expected ? 'match' : 'differs' }))
        .on('error', (err: NodeJS.ErrnoException) => end({ state: 'refused', rule: 'unreadable', reason: `'${file}' could not be read (${err.code ?? err.message})` }));
    });
  }

  /** Waits for one of the READS_AT_ONCE places; false when `stop` came first. */
  private turn(stop: AbortSignal): Promise<boolean> {
    if (stop.aborted) return Promise.resolve(false);
    if (this.reading < (this.opts.atOnce ?? READS_AT_ONCE)) {
      this.reading++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const granted = () => {
        stop.removeEventListener('abort', left);
        resolve(true);
      };
      const left = () => {
        const at = this.waiting.indexOf(granted);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      };
      this.waiting.push(granted);
      stop.addEventListener('abort', left, { once: true });
    });
  }

  /** The place goes to the next in line (still counted as reading), or is freed. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.reading--;
  }
}

const GIB = 1024 ** 3;

function refusalOf(stats: Stats, maxBytes: number): Extract<FileVerdict, { state: 'refused' }> | undefined {
  if (!stats.isFile()) {
    return { state: 'refused', rule: 'not-a-file', reason: 'it is not a regular file (a folder, device, FIFO or socket): hash= reads only a media file. Send the path of the file, or leave hash= out to scan a folder' };
  }
  if (stats.size > maxBytes) {
    const size = maxBytes >= GIB ? `${maxBytes / GIB} GiB` : `${maxBytes} bytes`;
    return { state: 'refused', rule: 'too-large', reason: `it is ${stats.size} bytes, more than the ${size} hash= reads: leave hash= out, and the file check waits for the file instead` };
  }
  return undefined;
}
