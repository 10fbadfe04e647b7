// The JSON the HTTP routes take and answer, as zod types: the one source of their TypeScript types, of the
// route schemas Fastify validates and serializes with, and so of the control API's OpenAPI document.
//
// zod's mini API, each type made by a function when a route registers and let go once jsonSchema() has turned it
// into the JSON schema Fastify keeps: the running relay holds no zod object for its routes, and the same code runs
// from the sources (tests) and from the bundle (docs/performance.md, "Idle memory").
import * as z from 'zod/mini';
import { DELIVERY_STATES } from '../scan.js';

/** A zod type with the description the OpenAPI document shows beside it. */
const described = <T extends z.ZodMiniType>(type: T, description: string): T => type.check(z.meta({ description }));
const nullableText = (description?: string) => (description ? described(z.nullable(z.string()), description) : z.nullable(z.string()));
const RECEIVED = 'the path as the sender sent it, before SERVER_PATH_MAPPINGS';

export const secretParams = () => z.object({ secret: described(z.string(), 'your SERVER_PASS') });

export const errorReply = () => z.object({ error: z.string() });

/** A path refused by the path gate, or a body that failed validation (no rule then). */
export const refusalReply = () =>
  z.object({
    error: z.string(),
    rule: described(z.optional(z.string()), 'the path rule broken (docs/security.md)'),
  });

export const folderBody = () => z.object({ folder: described(z.string().check(z.minLength(1)), 'the folder as shown in the queue or history') });

/** What Scan now, Retry and Drop answer: 200 with what was done, 404 with why not. */
export const actionResult = () =>
  z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), folder: z.string(), done: z.string() }),
    z.object({ ok: z.literal(false), folder: z.string(), error: z.string() }),
  ]);
export type ActionResult = z.infer<ReturnType<typeof actionResult>>;

export const queuedFolder = () =>
  z.object({
    id: z.int(),
    folder: z.string(),
    priority: z.int(),
    state: z.enum(['waiting', 'dispatching']),
    dueAt: z.number(),
    dueInMs: described(z.number(), 'ms until the delay (or the next file check) is over; 0 when due'),
    firstAt: z.number(),
    lastAt: z.number(),
    requests: described(z.int(), 'requests merged into this folder'),
    source: z.string(),
    event: z.string(),
    fileChecks: z.int(),
    lastError: nullableText(),
    received: nullableText(RECEIVED),
    deliveries: z.array(
      z.object({
        target: z.string(),
        state: z.enum(DELIVERY_STATES),
        attempts: z.int(),
        nextAt: z.number(),
        lastError: nullableText(),
        detail: nullableText(),
        deliveredAt: described(z.nullable(z.number()), 'when the server accepted the scan (null while pending)'),
      }),
    ),
  });
export type QueuedFolder = z.infer<ReturnType<typeof queuedFolder>>;

export const finishedScan = () =>
  z.object({
    id: z.int(),
    folder: z.string(),
    source: z.string(),
    event: z.string(),
    requests: z.int(),
    askedAt: described(z.number(), 'when it was first asked for'),
    finishedAt: z.number(),
    target: nullableText(),
    outcome: described(z.string(), "scanned, confirmed, not-found, unconfirmed, unmatched, refused (a library's own folder nobody asked to scan whole), exhausted or dropped"),
    detail: nullableText(),
    attempts: z.int(),
    deliveryMs: described(z.nullable(z.int()), 'ms from the folder being ready to the server accepting the scan'),
    followMs: described(z.nullable(z.int()), 'ms from the server accepting the scan to the follow-up outcome; null when nothing was followed'),
    received: nullableText(RECEIVED),
  });
export type FinishedScan = z.infer<ReturnType<typeof finishedScan>>;

export const targetHealth = () =>
  z.object({
    name: z.string(),
    kind: z.string(),
    up: z.boolean(),
    lastError: z.optional(z.string()),
    downSince: z.optional(z.number()),
    nextProbeAt: z.optional(z.number()),
    inFlight: z.int(),
    scanned: z.int(),
    failed: z.int(),
    outstanding: described(z.optional(z.int()), 'scans the server accepted and has not ended (servers that can tell: Plex)'),
    maxOutstanding: described(z.optional(z.int()), 'PLEX_MAX_OUTSTANDING / MAX_OUTSTANDING: the cap on outstanding'),
    dueWaitMs: described(z.optional(z.int()), 'ms the next due folder for this server has waited since it was due'),
    heldUntil: described(z.optional(z.number()), 'the server answered 429 or 503 with Retry-After: nothing is sent to it before this (ms since the epoch)'),
    heldAsked: described(z.optional(z.string()), 'what the server asked, e.g. "Retry-After: 20"'),
    socket: described(
      z.optional(
        z.object({
          state: described(
            z.enum(['opening', 'open', 'reconnecting', 'closed']),
            'open: the server answered on it; reconnecting: refused, dropped or gone silent, dialled again with backoff while scans are followed by polling; closed: not wanted now (nothing followed)',
          ),
          lastFrameAgeMs: described(z.optional(z.int()), 'ms since the server last sent a frame or answered a ping'),
          why: described(z.optional(z.string()), 'why it is reconnecting'),
        }),
      ),
      "the follower's notification socket (Plex, Jellyfin, Emby), once opened",
    ),
    notes: described(
      z.optional(z.array(z.string())),
      "what to know of the server's own settings, e.g. Jellyfin's real-time monitoring on a library scanrelay serves: what it costs and how to turn it off",
    ),
  });

export const queueQuery = () => z.object({ limit: z._default(z.int().check(z.gte(1), z.lte(5000)), 500) });
export const queueReply = () => z.object({ count: z.int(), folders: z.array(queuedFolder()) });
export const historyQuery = () => z.object({ limit: z._default(z.int().check(z.gte(1), z.lte(10_000)), 100) });
export const historyReply = () => z.object({ history: z.array(finishedScan()) });
export const targetsReply = () =>
  z.object({
    held: nullableText('why every scan waits (a missing anchor file); null when none does'),
    targets: z.array(targetHealth()),
  });
export type TargetsReply = z.infer<ReturnType<typeof targetsReply>>;
export const heldReply = () =>
  z.object({
    count: z.int(),
    limit: described(z.int(), 'the most requests held at once; more hash= requests are answered 503 (webhooks never are)'),
    held: z.array(
      z.object({
        path: described(z.string(), "the path as received, after the trigger's rewrite"),
        local: described(z.string(), 'where scanrelay reads the file (SERVER_PATH_MAPPINGS, then SERVER_FILE_EXIST_PATH_MAPPINGS)'),
        hash: described(z.string(), "the SHA-256 the sender asked for (the file's own is never shown)"),
        since: z.number(),
        checks: described(z.int(), 'checks made, of `of` (SERVER_MAX_FILE_CHECKS)'),
        of: z.int(),
        reading: described(z.boolean(), 'the file is being read now'),
        requests: described(z.int(), 'identical requests merged into this one since it was held or resumed'),
      }),
    ),
  });
export const driveReply = () => z.object({ drive: described(z.unknown(), "the monitor's status block; null when it is not running") });

export const scanBody = () =>
  z.object({
    path: z.string().check(z.minLength(1)),
    refresh: described(z.optional(z.enum(['item'])), 'also refresh the metadata of the item(s) holding the file'),
    libraryRoot: described(
      z.optional(z.boolean()),
      "true: where the folder is a library's own folder, scan the whole library; without it such a folder is refused (history outcome `refused`)",
    ),
  });

/** What POST /scan answers: 200 when queued (or ignored), 202 when the path reaches no library. */
export const scanReply = () =>
  z.object({
    ok: z.literal(true),
    path: z.string(),
    mapped: z.string(),
    folder: z.nullable(z.string()),
    merged: z.optional(z.boolean()),
    ignoredBy: z.optional(z.string()),
    unmatched: described(z.optional(z.string()), 'with 202: in no library of any media server, and what to change'),
  });
export type ScanReply = z.infer<ReturnType<typeof scanReply>>;

/** One path of a webhook or manual request, and where it went. */
const receivedPath = () =>
  z.object({
    path: z.string(),
    mapped: described(z.string(), 'after SERVER_PATH_MAPPINGS'),
    folder: described(z.nullable(z.string()), 'the folder of the path; null when ignored'),
    ignoredBy: described(z.optional(z.string()), 'the SERVER_IGNORE_LIST entry that matched'),
    merged: described(z.optional(z.boolean()), 'the folder was already queued: merged, delay reset'),
    unmatched: described(z.optional(z.string()), 'why no library holds it, and what to change'),
  });

/** What a webhook or manual request gets back: 200, or 202 when some path reaches no library (see `warning`). */
export const receivedReply = () =>
  z.object({
    ok: z.boolean(),
    test: described(z.optional(z.boolean()), 'a test request from the app; nothing queued'),
    ignored: described(z.optional(z.string()), 'why nothing was queued (an event that names no file)'),
    queued: described(z.optional(z.array(receivedPath())), 'the paths queued (or merged into a queued folder)'),
    unmatched: described(z.optional(z.array(receivedPath())), 'the paths in no library of any media server: recorded as unmatched, not queued'),
    ignoredPaths: described(z.optional(z.array(receivedPath())), 'the paths SERVER_IGNORE_LIST kept out'),
    warning: described(z.optional(z.string()), 'with 202: which paths reach no library, and the SERVER_PATH_MAPPINGS change that fixes it'),
  });
export type ReceivedReply = z.infer<ReturnType<typeof receivedReply>>;

/** What reading config.json's ARR entries again changed, by NAME. */
export const arrReloadReply = () => {
  const names = (what: string) => described(z.array(z.string()), what);
  return z.object({
    added: names('apps caught up from now on'),
    changed: names('apps started again with their new entry, their history cursor kept'),
    removed: names('apps no longer read'),
    unchanged: names('apps left as they were'),
  });
};
export type ArrReloadReply = z.infer<ReturnType<typeof arrReloadReply>>;

export const explainQuery = () => z.object({ path: z.string().check(z.minLength(1)) });

/**
 * The JSON Schema (draft-07, as Fastify's validator reads it) of a zod type. `input` describes what a client
 * sends (defaults apply, extra keys are let through as before); `output` what the service answers.
 */
export function jsonSchema(type: z.ZodMiniType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(type, {
    target: 'draft-7',
    io,
    override: ({ jsonSchema: s }) => {
      // z.int()'s implied safe-integer bounds say nothing a reader needs.
      if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
      if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
    },
  });
  return schema;
}
