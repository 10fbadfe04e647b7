// autopulse's manual trigger on autoscan's route: `/triggers/manual?path=<file or folder>[&hash=<sha256>]`, GET or
// POST with an empty body, answered with autopulse's ScanEvent JSON, so Bazarr's "Autopulse" integration and
// Tdarr/FileFlows flows written for autopulse can point at scanrelay. Shapes from dan-online/autopulse
// (crates/server/src/routes/triggers.rs, crates/database/src/models.rs; docs/configuration.md cites lines).
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HashRefused, HoldFull, SHA256_HEX } from '../hash/hold.js';
import { StorageError, TooManyPaths, type Admission } from '../intake/intake.js';
import { PathRefused } from '../paths/gate.js';
import type { ScanRequest } from '../request.js';
import type { AppDeps } from './deps.js';

/** autopulse's `ScanEvent` row as its trigger answers it (snake_case, timestamps without a zone). */
export interface ScanEvent {
  id: string;
  event_source: string;
  event_timestamp: string;
  file_path: string;
  file_hash: string | null;
  process_status: 'pending' | 'complete' | 'retry' | 'failed';
  found_status: 'found' | 'not_found' | 'hash_mismatch';
  failed_times: number;
  next_retry_at: string | null;
  targets_hit: string;
  found_at: string | null;
  processed_at: string | null;
  created_at: string;
  updated_at: string;
  can_process: string;
}

/** chrono's NaiveDateTime as serde writes it: ISO 8601 without the zone. */
const naive = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '');

function scanEvent(source: string, path: string, hash: string | null, now: number, dueAt: number, failed: boolean): ScanEvent {
  return {
    id: randomUUID(),
    event_source: source,
    event_timestamp: naive(now),
    file_path: path,
    file_hash: hash,
    process_status: failed ? 'failed' : 'pending',
    found_status: 'not_found',
    failed_times: 0,
    next_retry_at: null,
    targets_hit: '',
    found_at: null,
    processed_at: null,
    created_at: naive(now),
    updated_at: naive(now),
    can_process: naive(dueAt),
  };
}

type Query = { Querystring: Record<string, string | string[] | undefined> };

const listOf = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/**
 * Answers `path=` requests. `source` is the trigger's name (`manual`, `bazarr`) as autopulse reports it in
 * `event_source`; `rewrite` is the trigger's rewrite (AUTOSCAN.MANUAL_REWRITE).
 */
export async function answerPaths(req: FastifyRequest<Query>, reply: FastifyReply, deps: AppDeps, source: string, rewrite: (p: string) => string) {
  const { logger } = deps;
  const now = deps.clock?.now() ?? Date.now();
  const fail = (code: number, message: string) => {
    logger.info({ client: req.ip }, `Refused an autopulse-style ${source} trigger from '${req.ip}': ${message}. Answered ${code}.`);
    return reply.code(code).send(JSON.stringify(message));
  };
  // The intake logged it already, at most once a minute per client.
  const refused = (err: PathRefused) => reply.code(400).send(JSON.stringify(err.message));
  // autopulse reads a manual trigger's query only when the body is empty (a JSON body there is its 400).
  if (typeof req.body === 'string' && req.body.trim() !== '') return fail(400, 'Invalid request: send path= in the query and no body');
  const paths = listOf(req.query.path);
  const hashes = listOf(req.query.hash);
  if (paths.some((p) => p.trim() === '' || p.includes('\0'))) return fail(400, 'a path parameter is empty or holds a NUL character');
  if (hashes.length > 1 || (hashes.length === 1 && paths.length > 1)) return fail(400, 'hash= names the SHA-256 of one file: send one path with it');
  const hash = hashes[0]?.toLowerCase();
  if (hash !== undefined && !SHA256_HEX.test(hash)) return fail(400, 'hash must be the SHA-256 of the file as 64 hex digits');

  const requests = paths.map((p): ScanRequest => ({ path: rewrite(p), source: 'manual', event: 'Manual', kind: hash ? 'file' : 'auto' }));
  reply.type('application/json; charset=utf-8');
  if (hash !== undefined) {
    if (!deps.hashHold) return fail(503, 'hash= is not available here');
    try {
      // The path gate and the mapping first, as for any request; what was ignored is not held.
      const [gated] = deps.intake.checkPaths(requests, req.ip);
      const [admission] = await deps.intake.resolve([gated]);
      if (admission.ignoredBy !== undefined) return reply.code(204).send();
      await deps.hashHold.hold(gated, hash, req.ip);
    } catch (err) {
      // Refusals and a full list are logged by the hold, once per kind and then counted, not once per request.
      if (err instanceof HoldFull || (err instanceof HashRefused && err.retryAfter !== undefined)) {
        return reply.code(503).header('retry-after', String(err.retryAfter)).send(JSON.stringify(err.message));
      }
      if (err instanceof HashRefused) return reply.code(400).send(JSON.stringify(err.message));
      if (err instanceof PathRefused) return refused(err);
      throw err;
    }
    return reply.code(200).send(scanEvent(source, requests[0].path, hash, now, now, false));
  }


  let admissions: Admission[];
  try {
    admissions = await deps.intake.submit(requests, req.ip);
  } catch (err) {
    if (err instanceof PathRefused) return refused(err);
    if (err instanceof TooManyPaths) return fail(413, err.message);
    if (err instanceof StorageError) {
      logger.error({ client: req.ip }, `Could not queue an autopulse-style ${source} trigger: ${err.message}. Answered 503 so the sender records a failure.`);
      return reply.code(503).send(JSON.stringify(err.message));
    }
    throw err;
  }
  // autopulse leaves filtered paths out of its answer, and answers 204 when nothing is left.
  const kept = admissions.filter((a) => a.ignoredBy === undefined);
  if (kept.length === 0) return reply.code(204).send();
  const events = kept.map((a) => scanEvent(source, a.request.path, null, now, (a.folder && deps.queue.get(a.folder)?.dueAt) || now, a.unmatched !== undefined));
  return reply.code(200).send(events.length === 1 ? events[0] : events);
}
