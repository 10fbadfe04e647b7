// The intake: a trigger's requests become queued folders (mapped, filtered, prioritised, committed).
import type { Activity } from '../activity.js';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { IntakeGate } from './gate.js';
import { priorityOf, type MappingMatch } from '../paths/mapping.js';
import type { PathState } from '../paths/disk.js';
import { routeKnown, routePath, type IntakeSettings, type Route } from '../paths/route.js';
import type { FolderRequest, Queue } from '../queue/store.js';
import type { ScanRequest } from '../request.js';

/** What became of one requested path. */
export interface Admission {
  request: ScanRequest;
  /** The path after SERVER_PATH_MAPPINGS. */
  mapped: string;
  match?: MappingMatch;
  /** The folder queued (undefined when ignored). */
  folder?: string;
  kind?: 'file' | 'folder';
  ignoredBy?: string;
  merged?: boolean;
  /** In no library of any target: not queued, recorded as unmatched at once. What to tell the sender. */
  unmatched?: Unmatched;
}

/** A path that reaches no library: one sentence for people, and what to change. */
export interface Unmatched {
  summary: string;
  advice: string;
}

/**
 * Where a folder stands among the targets' libraries: null when some target holds it or cannot be asked (then
 * it is queued as always), else what to say. Built from the path doctor (doctor/judge.ts).
 */
export type LibraryJudge = (received: string, folder: string, match: MappingMatch | undefined) => Promise<Unmatched | null>;

export class StorageError extends Error {}

/** More paths in one request than SERVER_MAX_REQUEST_PATHS: refused whole (413), nothing queued. */
export class TooManyPaths extends Error {
  constructor(readonly count: number, readonly limit: number) {
    super(`this request names ${count} paths; at most ${limit} are taken from one request (SERVER_MAX_REQUEST_PATHS). Nothing was queued: send them in smaller requests, or raise SERVER_MAX_REQUEST_PATHS in config.json`);
  }
}

export interface IntakeDeps {
  queue: Queue;
  settings: IntakeSettings;
  logger: Logger;
  /** The clock of the log's one-line-a-minute rule for refused paths. */
  clock?: Clock;
  pathState: (path: string) => Promise<PathState>;
  activity?: Activity;
  /** Called after a commit with the earliest due time queued, so the processor notices new work. */
  onQueued?: (dueAt: number) => void;
  /** Tells paths in no target's library apart at intake; without it every path is queued. */
  judge?: LibraryJudge;
  /** SERVER_MAX_REQUEST_PATHS: the most paths one request may name (without it, no limit). */
  maxPaths?: number;
}

type Enqueued = ReturnType<Queue['enqueueMany']>;

interface Waiting {
  requests: FolderRequest[];
  resolve: (results: Enqueued) => void;
  reject: (err: unknown) => void;
}

export class Intake {
  /** Requests whose transaction has not run yet; committed together at the end of this event-loop turn. */
  private waiting: Waiting[] = [];
  private readonly gatekeeper: IntakeGate;

  constructor(private readonly deps: IntakeDeps) {
    this.gatekeeper = new IntakeGate(deps.logger, deps.clock ?? systemClock);
  }

  /** The mappings, ignore list and priorities requests are routed with. */
  get settings(): IntakeSettings {
    return this.deps.settings;
  }

  /** Maps and classifies requests without queueing them (Retry and Scan now map a received path again here). */
  async resolve(requests: ScanRequest[]): Promise<Admission[]> {
    const { settings, pathState, judge } = this.deps;
    return Promise.all(
      requests.map(async (request): Promise<Admission> => {
        const r = await routePath(request.path, request.kind, settings, pathState);
        const a = this.admission(request, r);
        // A deletion is scanned wherever it is: it says something left, and the library may still list it.
        if (a.folder !== undefined && judge && !request.deleted) a.unmatched = (await judge(request.path, a.folder, r.match)) ?? undefined;
        return a;
      }),
    );
  }

  /**
   * Queues requests whose kind is already known (file/folder), synchronously, so a caller inside its own
   * SQLite transaction (the Drive monitor saving its cursor) commits the request with its own state.
   */
  submitKnown(requests: ScanRequest[], client: string): Admission[] {
    const admissions = this.gate(requests, client, false).map((request) => {
      if (request.kind === 'auto') throw new Error('submitKnown needs requests of kind file or folder');
      return this.admit(request, request.kind);
    });
    this.commit(admissions, client);
    this.counted(requests, admissions);
    return admissions;
  }

  /** One request (a webhook, a form, a Drive change, a WATCH folder) counted for /metrics and the dashboard. */
  private counted(requests: ScanRequest[], admissions: Admission[]): void {
    if (!requests[0]) return;
    const folders = admissions.filter((a) => a.folder !== undefined && !a.unmatched).length;
    // The same word the answer and history use: a request whose paths all reach no library is `unmatched`.
    const outcome = folders ? 'queued' : admissions.length > 0 && admissions.every((a) => a.unmatched) ? 'unmatched' : 'ignored';
    this.deps.activity?.emit('request', { source: requests[0].source, event: requests[0].event, folders, outcome });
  }

  private admit(request: ScanRequest, kind: 'file' | 'folder'): Admission {
    return this.admission(request, routeKnown(request.path, kind, this.deps.settings));
  }

  private admission(request: ScanRequest, r: Route): Admission {
    if (r.ignoredBy !== undefined) return { request, mapped: r.mapped, match: r.match, ignoredBy: r.ignoredBy };
    return { request, mapped: r.mapped, match: r.match, folder: r.folder, kind: r.kind };
  }

  /** Resolves and queues; returns only after the rows are committed. Throws StorageError when the queue can't be written. */
  async submit(requests: ScanRequest[], client: string): Promise<Admission[]> {
    const limit = this.deps.maxPaths;
    if (limit !== undefined && requests.length > limit) {
      const err = new TooManyPaths(requests.length, limit);
      this.deps.logger.warn({ client, source: requests[0].source, event: requests[0].event, paths: requests.length }, `Refused a ${requests[0].source} ${requests[0].event} request from '${client}': ${err.message}.`);
      throw err;
    }
    const admissions = await this.resolve(this.gate(requests, client, true));
    this.recordUnmatched(admissions, client);
    const planned = this.plan(admissions, client);
    if (planned.length) this.record(planned, await this.groupCommit(planned.map((t) => t.r)), client);
    this.counted(requests, admissions);
    return admissions;
  }

  /** The path gate alone, for a request held before it is submitted (hash=): the requests with their paths resolved; throws PathRefused as submit does. */
  checkPaths(requests: ScanRequest[], client: string): ScanRequest[] {
    return this.gate(requests, client, true);
  }

  /** Every source's paths through the gate (./intake-gate.ts); a sender's request with a refused path throws PathRefused. */
  private gate(requests: ScanRequest[], client: string, whole: boolean): ScanRequest[] {
    return this.gatekeeper.pass(requests, this.deps.settings.pathMappings, client, whole);
  }

  private commit(admissions: Admission[], client: string): void {
    const planned = this.plan(admissions, client);
    if (planned.length) this.record(planned, this.write(planned.map((t) => t.r)), client);
  }

  /**
   * Group commit: every webhook that reaches this point in the same turn of the event loop shares one
   * transaction, and each is answered only after it. Under a burst this turns many small commits into a few
   * larger ones; alone, a request waits one turn.
   */
  private groupCommit(requests: FolderRequest[]): Promise<Enqueued> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ requests, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    let results: Enqueued;
    try {
      results = this.write(batch.flatMap((w) => w.requests));
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      // One transaction failed (disk full, read-only): none of it was committed. Each request gets its own
      // try, so a fault that has just cleared, or one bad request, cannot fail the others.
      for (const w of batch) {
        try {
          w.resolve(this.write(w.requests));
        } catch (err) {
          w.reject(err);
        }
      }
      return;
    }
    let at = 0;
    for (const w of batch) {
      w.resolve(results.slice(at, at + w.requests.length));
      at += w.requests.length;
    }
  }

  private write(requests: FolderRequest[]): Enqueued {
    try {
      const results = this.deps.queue.enqueueMany(requests);
      this.deps.onQueued?.(Math.min(...results.map((r) => r.dueAt)));
      return results;
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      // A lock is another process's doing, not the disk's: say which to look at.
      const advice = code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')
        ? 'another process holds the queue file locked (a second scanrelay or a tool on the same --queuefile?); the sender retries'
        : "check that the queue file's disk has space and is writable";
      throw new StorageError(`could not write the queue (${code || (err as Error).message}): ${advice}`);
    }
  }

  /** Paths in no library: into history at once, with a warning that says what to change. */
  private recordUnmatched(admissions: Admission[], client: string): void {
    const { queue, logger } = this.deps;
    for (const a of admissions) {
      if (!a.unmatched || a.folder === undefined) continue;
      const detail = `${a.unmatched.summary}\n${a.unmatched.advice}`;
      try {
        queue.recordUnmatched({ folder: a.folder, received: a.request.path, source: a.request.source, event: a.request.event, detail });
      } catch (err) {
        throw new StorageError(`could not write the queue (${(err as { code?: string }).code ?? (err as Error).message}): check that the queue file's disk has space and is writable`);
      }
      logger.warn(
        { client, source: a.request.source, event: a.request.event, path: a.request.path, mapped: a.mapped, folder: a.folder },
        `${a.unmatched.summary} ${a.unmatched.advice}`,
      );
      this.deps.activity?.emit('finished', { folder: a.folder, outcome: 'unmatched', detail });
    }
  }

  /** Logs ignored requests and turns the rest into queue rows. */
  private plan(admissions: Admission[], client: string): { a: Admission; r: FolderRequest }[] {
    const { settings, logger } = this.deps;
    const toQueue: { a: Admission; r: FolderRequest }[] = [];
    for (const a of admissions) {
      const fields = { client, source: a.request.source, event: a.request.event, path: a.request.path, mapped: a.mapped };
      if (a.ignoredBy !== undefined) {
        logger.info(fields, `Ignoring scan request for '${a.request.path}' because '${a.ignoredBy}' was matched from your SERVER_IGNORE_LIST.`);
        continue;
      }
      if (a.unmatched) continue;
      if (!a.match) logger.debug(fields, `'${a.request.path}' matched no SERVER_PATH_MAPPINGS entry; passed through unchanged.`);
      toQueue.push({
        a,
        r: {
          folder: a.folder!,
          priority: priorityOf(a.mapped, settings.priorities),
          source: a.request.source,
          event: a.request.event,
          fileHint: a.kind === 'file' ? a.mapped : undefined,
          deleted: a.request.deleted === true,
          ...(a.request.refresh ? { refresh: a.request.refresh } : {}),
          ...(a.request.ids ? { ids: a.request.ids } : {}),
          received: a.request.path,
          ...(a.request.delayMs !== undefined ? { delayMs: a.request.delayMs } : delayOf(a.request, settings.scanDelays)),
          ...(a.request.libraryRoot ? { libraryRoot: true } : {}),
        },
      });
    }
    return toQueue;
  }

  private record(planned: { a: Admission; r: FolderRequest }[], results: Enqueued, client: string): void {
    const { logger } = this.deps;
    results.forEach((res, i) => {
      const { a } = planned[i];
      a.merged = res.merged;
      logger.info(
        { client, source: a.request.source, event: a.request.event, path: a.request.path, mapped: a.mapped, folder: res.folder, merged: res.merged },
        res.merged
          ? `Already queued '${res.folder}'; merged this request and reset its delay.`
          : `Added '${res.folder}' to the queue (${a.request.source} ${a.request.event}).`,
      );
      this.deps.activity?.emit('queued', { folder: res.folder, merged: res.merged, source: a.request.source, event: a.request.event });
    });
  }
}

/**
 * SERVER_SCAN_DELAYS: the most specific entry for a request ("sonarr:upgrade", then "upgrade", then "sonarr"),
 * names compared without regard to case; none leaves the request to SERVER_SCAN_DELAY.
 */
export function delayOf(request: ScanRequest, delays: Record<string, number> | undefined): { delayMs?: number } {
  if (!delays) return {};
  const source = request.source.toLowerCase();
  const event = request.event.toLowerCase();
  const lookup = new Map(Object.entries(delays).map(([k, v]) => [k.toLowerCase(), v]));
  const seconds = lookup.get(`${source}:${event}`) ?? lookup.get(event) ?? lookup.get(source);
  return seconds === undefined ? {} : { delayMs: seconds * 1000 };
}
