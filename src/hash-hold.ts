// autopulse's `hash=`: a request is held until the file on disk has the SHA-256 its sender named (a transcode still
// being written, a copy not finished), checked on the file-check budget (SERVER_MAX_FILE_CHECKS ×
// SERVER_FILE_CHECK_DELAY), then queued like any request. A hash that never matches ends in history as
// `not-found` with the reason. Held requests live in memory only: the sender is answered at once, as autopulse
// answers, and hashing a large file can take minutes, longer than any sender waits.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Activity } from './activity.js';
import type { Clock } from './clock.js';
import type { Intake } from './intake.js';
import type { Logger } from './log.js';
import type { Queue } from './queue/store.js';
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
  queue: Pick<Queue, 'recordUnmatched'>;
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

  constructor(private readonly deps: HashHoldDeps) {}

  get size(): number {
    return this.held.size;
  }

  /** Starts waiting for `request`'s file to have `hash`; returns at once. */
  hold(request: ScanRequest, hash: string, client: string): void {
    if (this.held.size >= (this.deps.limit ?? 1000)) throw new HoldFull(`${this.held.size} requests already wait for their file's hash; try again later`);
    const run = this.watch(request, hash.toLowerCase(), client).catch((err: Error) => {
      this.deps.logger.error({ path: request.path }, `Waiting for the hash of '${request.path}' failed: ${err.message}`);
    });
    this.held.add(run);
    void run.finally(() => this.held.delete(run));
  }

  /** Stops every wait at its next check (nothing more is queued or recorded), and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.held);
  }

  private async watch(request: ScanRequest, hash: string, client: string): Promise<void> {
    const { clock, logger } = this.deps;
    const digest = this.deps.digest ?? fileSha256;
    const local = this.deps.localPath(request.path);
    const checks = Math.max(1, this.deps.checks);
    let last: string | undefined;
    for (let check = 1; check <= checks; check++) {
      if (this.stopped) return;
      last = await digest(local);
      if (last === hash) {
        logger.info({ path: request.path, local, check }, `File '${local}' has the SHA-256 it was sent with (check ${check} of ${checks}): queued.`);
        await this.deps.intake.submit([request], client);
        return;
      }
      logger.debug({ path: local, check }, `File '${local}' ${last === undefined ? 'is not there' : 'has another SHA-256'} on check ${check} of ${checks}.`);
      if (check < checks) await clock.sleep(this.deps.delayMs);
    }
    if (this.stopped) return;
    const why = last === undefined ? 'the file never appeared' : `the file's SHA-256 is ${last}`;
    const detail =
      `The file never had the SHA-256 its sender named, so nothing was scanned.\n` +
      `'${local}' was checked ${checks} time(s) (SERVER_MAX_FILE_CHECKS, SERVER_FILE_CHECK_DELAY apart) for SHA-256 ${hash}; ${why}.`;
    const [admission] = await this.deps.intake.resolve([request]);
    const folder = admission?.folder ?? request.path;
    this.deps.queue.recordUnmatched({ folder, received: request.path, source: request.source, event: request.event, detail, outcome: 'not-found' });
    logger.warn({ path: request.path, local }, detail.replace('\n', ' '));
    this.deps.activity?.emit('finished', { folder, outcome: 'not-found', detail });
  }
}
