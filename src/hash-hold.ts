// autopulse's `hash=`: a request is held until the file on disk has the SHA-256 its sender named (a transcode still
// being written, a copy not finished), checked on the file-check budget (SERVER_MAX_FILE_CHECKS ×
// SERVER_FILE_CHECK_DELAY), then queued like any request. A hash that never matches ends in history as
// `not-found` with the reason. The sender is answered at once, as autopulse answers (hashing a large file can take
// minutes, longer than any sender waits), so a held request is kept in the queue file (src/queue/held.ts) with the
// checks made so far, and a restart resumes it with what is left of its budget.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Activity } from './activity.js';
import type { Clock } from './clock.js';
import type { Intake } from './intake.js';
import type { Logger } from './log.js';
import type { Queue } from './queue/store.js';
import type { HeldRequests } from './queue/held.js';
import type { ScanRequest } from './scan.js';

/** The SHA-256 of a file as lower-case hex, or undefined when it cannot be read (not there yet). */
export async function fileSha256(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', () => resolve(undefined));
  });
}

export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** More requests held at once than the limit: the sender is told to try again later (503). */
export class HoldFull extends Error {}

export interface HashHoldDeps {
  intake: Pick<Intake, 'submit' | 'resolve'>;
  queue: Pick<Queue, 'recordUnmatched'> & { held: Pick<HeldRequests, 'add' | 'checked' | 'remove' | 'all'> };
  clock: Clock;
  logger: Logger;
  activity?: Activity;
  /** Where this service reads the file: SERVER_PATH_MAPPINGS, then SERVER_FILE_EXIST_PATH_MAPPINGS. */
  localPath: (received: string) => string;
  /** SERVER_MAX_FILE_CHECKS (at least one check is made) and SERVER_FILE_CHECK_DELAY. */
  checks: number;
  delayMs: number;
  digest?: (path: string) => Promise<string | undefined>;
  /** Requests held at once; each costs a file read per check. */
  limit?: number;
}

export class HashHold {
  private readonly held = new Set<Promise<void>>();
  private stopped = false;
  /** Settles at stop(), so a wait between two checks ends at once. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: HashHoldDeps) {}

  get size(): number {
    return this.held.size;
  }

  /** Starts waiting for `request`'s file to have `hash`, kept in the queue file first; returns at once. */
  hold(request: ScanRequest, hash: string, client: string): void {
    if (this.held.size >= (this.deps.limit ?? 1000)) throw new HoldFull(`${this.held.size} requests already wait for their file's hash; try again later`);
    const lower = hash.toLowerCase();
    const id = this.deps.queue.held.add(request, lower, client, this.deps.clock.now());
    this.run(id, request, lower, client, 0);
  }

  /** Resumes the requests a previous run held (at start), each with the checks it has left. */
  resume(): number {
    const rows = this.deps.queue.held.all();
    for (const r of rows) this.run(r.id, r.request, r.hash, r.client, r.checks);
    if (rows.length > 0) this.deps.logger.info(`Resumed ${rows.length} request(s) waiting for their file's SHA-256 (hash=).`);
    return rows.length;
  }

  /** Stops every wait (nothing more is queued or recorded; the next start resumes them), and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await Promise.all(this.held);
  }

  private run(id: number, request: ScanRequest, hash: string, client: string, done: number): void {
    const run = this.watch(id, request, hash, client, done).catch((err: Error) => {
      this.deps.logger.error({ path: request.path }, `Waiting for the hash of '${request.path}' failed: ${err.message}`);
    });
    this.held.add(run);
    void run.finally(() => this.held.delete(run));
  }

  private async watch(id: number, request: ScanRequest, hash: string, client: string, done: number): Promise<void> {
    const { clock, logger } = this.deps;
    const digest = this.deps.digest ?? fileSha256;
    const local = this.deps.localPath(request.path);
    const checks = Math.max(1, this.deps.checks);
    let last: string | undefined;
    for (let check = done + 1; check <= checks; check++) {
      if (this.stopped) return;
      last = await digest(local);
      if (this.stopped) return;
      if (last === hash) {
        logger.info({ path: request.path, local, check }, `File '${local}' has the SHA-256 it was sent with (check ${check} of ${checks}): queued.`);
        // Queued before forgotten: a crash between the two queues it again, where it merges with itself.
        await this.deps.intake.submit([request], client);
        this.deps.queue.held.remove(id);
        return;
      }
      this.deps.queue.held.checked(id, check);
      logger.debug({ path: local, check }, `File '${local}' ${last === undefined ? 'is not there' : 'has another SHA-256'} on check ${check} of ${checks}.`);
      if (check < checks) await clock.sleep(this.deps.delayMs, this.stopping.signal);
    }
    if (this.stopped) return;
    const why = last === undefined ? 'the file never appeared' : `the file's SHA-256 is ${last}`;
    const detail =
      `The file never had the SHA-256 its sender named, so nothing was scanned.\n` +
      `'${local}' was checked ${checks} time(s) (SERVER_MAX_FILE_CHECKS, SERVER_FILE_CHECK_DELAY apart) for SHA-256 ${hash}; ${why}.`;
    const [admission] = await this.deps.intake.resolve([request]);
    const folder = admission?.folder ?? request.path;
    this.deps.queue.recordUnmatched({ folder, received: request.path, source: request.source, event: request.event, detail, outcome: 'not-found' });
    this.deps.queue.held.remove(id);
    logger.warn({ path: request.path, local }, detail.replace('\n', ' '));
    this.deps.activity?.emit('finished', { folder, outcome: 'not-found', detail });
  }
}
