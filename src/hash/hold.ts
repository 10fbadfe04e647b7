// autopulse's `hash=`: a request is held until the file on disk has the SHA-256 its sender named (a transcode still
// being written, a copy not finished), checked on the file-check budget (SERVER_MAX_FILE_CHECKS ×
// SERVER_FILE_CHECK_DELAY), then queued like any request. A hash that never matches ends in history as
// `not-found` with the reason. The sender is answered at once, as autopulse answers (hashing a large file can take
// minutes, longer than any sender waits), so a held request is kept in the queue file (src/queue/held.ts) with the
// checks made so far, and a restart resumes it with what is left of its budget. Only a file inside a library is
// read (src/hash/scope.ts), by src/hash/read.ts, which says "matches" or "does not": the digest it computes is
// never logged, stored or sent. Identical requests (same mapped path, same hash) share one hold.
import type { Activity } from '../activity.js';
import type { Clock } from '../clock.js';
import type { HashReader } from './read.js';
import type { Placement } from './scope.js';
import type { Intake } from '../intake/intake.js';
import { ConditionLog } from '../log/condition.js';
import type { Logger } from '../log/logger.js';
import { preview } from '../paths/gate.js';
import type { Queue } from '../queue/store.js';
import type { HeldRequests } from '../queue/held.js';
import type { ScanRequest } from '../request.js';

export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** Requests held at once (after merging); each costs a file read per check. More is a 503 for hash= only. */
export const MAX_HELD = 1000;
/** A library list that could not be read is not asked for again sooner (doctor/judge.ts): try again after it. */
const LIBRARIES_RETRY_S = 30;

/** More requests held at once than the limit: the sender is told to try again later (503). */
export class HoldFull extends Error {
  constructor(limit: number, readonly retryAfter: number) {
    super(`${limit} requests already wait for their file's SHA-256, the most that may; try again later, or leave hash= out`);
  }
}

/** A path hash= may not read: 400 with the reason (503 with `retryAfter` when no server could be asked). */
export class HashRefused extends Error {
  constructor(readonly rule: string, reason: string, readonly retryAfter?: number) {
    super(reason);
  }
}

/** A held request as the dashboard, the API and /metrics show it. */
export interface HeldView {
  /** The path as received (after the trigger's rewrite). */
  path: string;
  /** Where this machine reads it. */
  local: string;
  /** The SHA-256 the sender asked for (never the file's). */
  hash: string;
  since: number;
  checks: number;
  of: number;
  reading: boolean;
  /** Requests merged into this hold since it was made or resumed. */
  requests: number;
}

export interface HashHoldDeps {
  intake: Pick<Intake, 'submit' | 'resolve'>;
  queue: Pick<Queue, 'recordUnmatched'> & { held: Pick<HeldRequests, 'add' | 'checked' | 'remove' | 'all'> };
  clock: Clock;
  logger: Logger;
  activity?: Activity;
  /** Where hash= may read a path (src/hash/scope.ts placeForHash). */
  place: (received: string) => Promise<Placement>;
  /** The path after SERVER_PATH_MAPPINGS (holds of one mapped path and one hash merge), and where this machine reads it. */
  route: (received: string) => { mapped: string; local: string };
  reader: HashReader;
  /** SERVER_MAX_FILE_CHECKS (at least one check is made) and SERVER_FILE_CHECK_DELAY. */
  checks: number;
  delayMs: number;
  /** Holds at once (default MAX_HELD). */
  limit?: number;
}

interface Hold {
  id: number;
  key: string;
  request: ScanRequest;
  hash: string;
  client: string;
  since: number;
  checks: number;
  local: string;
  reading: boolean;
  requests: number;
}

export class HashHold {
  private readonly holds = new Map<string, Hold>();
  private readonly runs = new Set<Promise<void>>();
  /** Aborts at stop(): a wait between two checks, a wait for a read's turn and a read in progress end at once. */
  private readonly stopping = new AbortController();
  /** Refusals, one line per kind and then a count every 10 minutes: a sender retrying a bad path cannot flood the log. */
  private readonly refusals: ConditionLog;

  constructor(private readonly deps: HashHoldDeps) {
    this.refusals = new ConditionLog({ logger: deps.logger, clock: deps.clock });
  }

  get size(): number {
    return this.holds.size;
  }

  get limit(): number {
    return this.deps.limit ?? MAX_HELD;
  }

  /** Every hold, oldest first. */
  list(): HeldView[] {
    const of = this.budget;
    return [...this.holds.values()].map((h) => ({ path: h.request.path, local: h.local, hash: h.hash, since: h.since, checks: h.checks, of, reading: h.reading, requests: h.requests }));
  }

  /**
   * Starts waiting for `request`'s file to have `hash`, kept in the queue file first; returns once it is held
   * (or merged into the same hold), without reading. Throws HashRefused for a path hash= may not read, HoldFull.
   */
  async hold(request: ScanRequest, hash: string, client: string): Promise<'held' | 'merged'> {
    const lower = hash.toLowerCase();
    const key = `${this.deps.route(request.path).mapped}\n${lower}`;
    if (this.merge(key, client)) return 'merged';
    this.roomFor(client);
    const placed = await this.deps.place(request.path);
    if (!placed.ok) throw this.refuse(placed.rule, placed.reason, request.path, client, placed.rule === 'libraries-unknown' ? LIBRARIES_RETRY_S : undefined);
    const look = placed.file === undefined ? undefined : await this.deps.reader.refusal(placed.file);
    if (look) throw this.refuse(look.rule, `'${placed.local}': ${look.reason}`, request.path, client);
    // Another identical request may have been held while this one was looked at.
    if (this.merge(key, client)) return 'merged';
    this.roomFor(client);
    const now = this.deps.clock.now();
    const id = this.deps.queue.held.add(request, lower, client, now);
    this.run({ id, key, request, hash: lower, client, since: now, checks: 0, local: placed.local, reading: false, requests: 1 });
    return 'held';
  }

  /** Resumes the requests a previous run held (at start), each with the checks it has left; identical ones merge. */
  resume(): number {
    const rows = this.deps.queue.held.all();
    for (const r of rows) {
      const { mapped, local } = this.deps.route(r.request.path);
      const key = `${mapped}\n${r.hash}`;
      const same = this.holds.get(key);
      if (same) {
        same.requests++;
        this.deps.queue.held.remove(r.id);
        continue;
      }
      this.run({ id: r.id, key, request: r.request, hash: r.hash, client: r.client, since: r.since, checks: r.checks, local, reading: false, requests: 1 });
    }
    if (rows.length > 0) this.deps.logger.info(`Resumed ${this.holds.size} request(s) waiting for their file's SHA-256 (hash=).`);
    return rows.length;
  }

  /** Stops every wait and read (nothing more is queued or recorded; the next start resumes them), and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.runs);
  }

  private get budget(): number {
    return Math.max(1, this.deps.checks);
  }

  private merge(key: string, client: string): boolean {
    const same = this.holds.get(key);
    if (!same) return false;
    same.requests++;
    this.deps.logger.info({ client, path: same.request.path }, `'${same.request.path}' already waits for the same SHA-256: merged the request from '${client}' into it.`);
    return true;
  }

  private roomFor(client: string): void {
    if (this.holds.size < this.limit) return;
    const full = new HoldFull(this.limit, Math.max(1, Math.ceil(this.deps.delayMs / 1000)));
    this.refusals.holds('full', `Refused a hash= request from '${client}': ${full.message}. Answered 503; webhooks and requests without hash= are still taken.`, { client });
    throw full;
  }

  private refuse(rule: string, reason: string, path: string, client: string, retryAfter?: number): HashRefused {
    const answer = retryAfter === undefined ? 'Answered 400' : `Answered 503 (try again in ${retryAfter} s)`;
    this.refusals.holds(rule, `Refused a hash= request for '${preview(path)}' from '${client}': ${reason}. ${answer}; nothing is held or read.`, { client, path: preview(path), rule });
    return new HashRefused(rule, reason, retryAfter);
  }

  private run(hold: Hold): void {
    this.holds.set(hold.key, hold);
    const run = this.watch(hold)
      .catch((err: Error) => this.deps.logger.error({ path: hold.request.path }, `Waiting for the SHA-256 of '${hold.request.path}' failed: ${err.message}`))
      .finally(() => {
        this.holds.delete(hold.key);
        this.runs.delete(run);
      });
    this.runs.add(run);
  }

  private async watch(hold: Hold): Promise<void> {
    const { clock, logger } = this.deps;
    const stop = this.stopping.signal;
    const checks = this.budget;
    let last = 'was not there';
    for (let check = hold.checks + 1; check <= checks; check++) {
      if (stop.aborted) return;
      const found = await this.check(hold);
      if (stop.aborted || found === 'stopped') return;
      if (found === 'match') {
        logger.info({ path: hold.request.path, local: hold.local, check }, `File '${hold.local}' has the SHA-256 it was sent with (check ${check} of ${checks}): queued.`);
        // Queued before forgotten: a crash between the two queues it again, where it merges with itself.
        await this.deps.intake.submit([hold.request], hold.client);
        this.deps.queue.held.remove(hold.id);
        return;
      }
      last = found;
      hold.checks = check;
      this.deps.queue.held.checked(hold.id, check);
      logger.debug({ path: hold.local, check }, `File '${hold.local}' ${found} on check ${check} of ${checks}.`);
      if (check < checks) await clock.sleep(this.deps.delayMs, stop);
    }
    if (stop.aborted) return;
    const detail =
      `The file never had the SHA-256 its sender named, so nothing was scanned.\n` +
      `'${hold.local}' was checked ${checks} time(s) (SERVER_MAX_FILE_CHECKS, SERVER_FILE_CHECK_DELAY apart); on the last check it ${last}.`;
    const [admission] = await this.deps.intake.resolve([hold.request]);
    const folder = admission?.folder ?? hold.request.path;
    this.deps.queue.recordUnmatched({ folder, received: hold.request.path, source: hold.request.source, event: hold.request.event, detail, outcome: 'not-found' });
    this.deps.queue.held.remove(hold.id);
    logger.warn({ path: hold.request.path, local: hold.local }, detail.replace('\n', ' '));
    this.deps.activity?.emit('finished', { folder, outcome: 'not-found', detail });
  }

  /** One check: 'match', 'stopped', or what the file was found to be (for the log and history). */
  private async check(hold: Hold): Promise<string> {
    const placed = await this.deps.place(hold.request.path);
    if (!placed.ok) {
      this.refusals.holds(placed.rule, `Did not read '${preview(hold.request.path)}' for hash=: ${placed.reason}.`, { path: preview(hold.request.path), rule: placed.rule });
      return `was not read: ${placed.reason}`;
    }
    hold.local = placed.local;
    if (placed.file === undefined) return 'was not there';
    hold.reading = true;
    try {
      const found = await this.deps.reader.matches(placed.file, hold.hash, this.stopping.signal);
      if (found.state === 'refused') return `was not read: ${found.reason}`;
      if (found.state === 'too-slow') return `could not be read within ${this.deps.reader.budgetMs / 1000} s`;
      return found.state === 'differs' ? 'did not have the SHA-256 asked for' : found.state === 'missing' ? 'was not there' : found.state;
    } finally {
      hold.reading = false;
    }
  }
}
