// The JSON the HTTP routes take and answer, as zod types: the one source of their TypeScript types, of the
// route schemas Fastify validates and serializes with, and so of the control API's OpenAPI document.
import * as z from 'zod';
import { DELIVERY_STATES } from '../scan.js';

const nullableText = (description?: string) => (description ? z.string().nullable().meta({ description }) : z.string().nullable());
const RECEIVED = 'the path as the sender sent it, before SERVER_PATH_MAPPINGS';

export const secretParams = z.object({ secret: z.string().meta({ description: 'your SERVER_PASS' }) });

export const errorReply = z.object({ error: z.string() });

/** A path refused by the path gate, or a body that failed validation (no rule then). */
export const refusalReply = z.object({
  error: z.string(),
  rule: z.string().optional().meta({ description: 'the path rule broken (docs/security.md)' }),
});

export const folderBody = z.object({ folder: z.string().min(1).meta({ description: 'the folder as shown in the queue or history' }) });

/** What Scan now, Retry and Drop answer: 200 with what was done, 404 with why not. */
export const actionResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), folder: z.string(), done: z.string() }),
  z.object({ ok: z.literal(false), folder: z.string(), error: z.string() }),
]);
export type ActionResult = z.infer<typeof actionResult>;


export const queuedFolder = z.object({
  id: z.int(),
  folder: z.string(),
  priority: z.int(),
  state: z.enum(['waiting', 'dispatching']),
  dueAt: z.number(),
  dueInMs: z.number().meta({ description: 'ms until the delay (or the next file check) is over; 0 when due' }),
  firstAt: z.number(),
  lastAt: z.number(),
  requests: z.int().meta({ description: 'requests merged into this folder' }),
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
      deliveredAt: z.number().nullable().meta({ description: 'when the server accepted the scan (null while pending)' }),
    }),
  ),
});
export type QueuedFolder = z.infer<typeof queuedFolder>;

export const finishedScan = z.object({
  id: z.int(),
  folder: z.string(),
  source: z.string(),
  event: z.string(),
  requests: z.int(),
  askedAt: z.number().meta({ description: 'when it was first asked for' }),
  finishedAt: z.number(),
  target: nullableText(),
  outcome: z.string().meta({ description: "scanned, confirmed, not-found, unconfirmed, unmatched, refused (a library's own folder nobody asked to scan whole), exhausted or dropped" }),
  detail: nullableText(),
  attempts: z.int(),
  deliveryMs: z.int().nullable().meta({ description: 'ms from the folder being ready to the server accepting the scan' }),
  followMs: z.int().nullable().meta({ description: 'ms from the server accepting the scan to the follow-up outcome; null when nothing was followed' }),
  received: nullableText(RECEIVED),
});
export type FinishedScan = z.infer<typeof finishedScan>;

export const targetHealth = z.object({
  name: z.string(),
  kind: z.string(),
  up: z.boolean(),
  lastError: z.string().optional(),
  downSince: z.number().optional(),
  nextProbeAt: z.number().optional(),
  inFlight: z.int(),
  scanned: z.int(),
  failed: z.int(),
  outstanding: z.int().optional().meta({ description: 'scans the server accepted and has not ended (servers that can tell: Plex)' }),
  maxOutstanding: z.int().optional().meta({ description: 'PLEX_MAX_OUTSTANDING / MAX_OUTSTANDING: the cap on outstanding' }),
  dueWaitMs: z.int().optional().meta({ description: 'ms the next due folder for this server has waited since it was due' }),
  heldUntil: z.number().optional().meta({ description: 'the server answered 429 or 503 with Retry-After: nothing is sent to it before this (ms since the epoch)' }),
  heldAsked: z.string().optional().meta({ description: 'what the server asked, e.g. "Retry-After: 20"' }),
});

export const queueQuery = z.object({ limit: z.int().min(1).max(5000).default(500) });
export const queueReply = z.object({ count: z.int(), folders: z.array(queuedFolder) });
export const historyQuery = z.object({ limit: z.int().min(1).max(10_000).default(100) });
export const historyReply = z.object({ history: z.array(finishedScan) });
export const targetsReply = z.object({
  held: nullableText('why every scan waits (a missing anchor file); null when none does'),
  targets: z.array(targetHealth),
});
export type TargetsReply = z.infer<typeof targetsReply>;
export const heldReply = z.object({
  count: z.int(),
  limit: z.int().meta({ description: 'the most requests held at once; more hash= requests are answered 503 (webhooks never are)' }),
  held: z.array(
    z.object({
      path: z.string().meta({ description: 'the path as received, after the trigger\'s rewrite' }),
      local: z.string().meta({ description: 'where scanrelay reads the file (SERVER_PATH_MAPPINGS, then SERVER_FILE_EXIST_PATH_MAPPINGS)' }),
      hash: z.string().meta({ description: 'the SHA-256 the sender asked for (the file\'s own is never shown)' }),
      since: z.number(),
      checks: z.int().meta({ description: 'checks made, of `of` (SERVER_MAX_FILE_CHECKS)' }),
      of: z.int(),
      reading: z.boolean().meta({ description: 'the file is being read now' }),
      requests: z.int().meta({ description: 'identical requests merged into this one since it was held or resumed' }),
    }),
  ),
});
export const driveReply = z.object({ drive: z.unknown().meta({ description: "the monitor's status block; null when it is not running" }) });

export const scanBody = z.object({
  path: z.string().min(1),
  refresh: z.enum(['item']).optional().meta({ description: 'also refresh the metadata of the item(s) holding the file' }),
  libraryRoot: z.boolean().optional().meta({
    description: "true: where the folder is a library's own folder, scan the whole library; without it such a folder is refused (history outcome `refused`)",
  }),
});

/** What POST /scan answers: 200 when queued (or ignored), 202 when the path reaches no library. */
export const scanReply = z.object({
  ok: z.literal(true),
  path: z.string(),
  mapped: z.string(),
  folder: z.string().nullable(),
  merged: z.boolean().optional(),
  ignoredBy: z.string().optional(),
  unmatched: z.string().optional().meta({ description: 'with 202: in no library of any media server, and what to change' }),
});
export type ScanReply = z.infer<typeof scanReply>;

/** One path of a webhook or manual request, and where it went. */
const receivedPath = z.object({
  path: z.string(),
  mapped: z.string().meta({ description: 'after SERVER_PATH_MAPPINGS' }),
  folder: z.string().nullable().meta({ description: 'the folder of the path; null when ignored' }),
  ignoredBy: z.string().optional().meta({ description: 'the SERVER_IGNORE_LIST entry that matched' }),
  merged: z.boolean().optional().meta({ description: 'the folder was already queued: merged, delay reset' }),
  unmatched: z.string().optional().meta({ description: 'why no library holds it, and what to change' }),
});

/** What a webhook or manual request gets back: 200, or 202 when some path reaches no library (see `warning`). */
export const receivedReply = z.object({
  ok: z.boolean(),
  test: z.boolean().optional().meta({ description: 'a test request from the app; nothing queued' }),
  ignored: z.string().optional().meta({ description: 'why nothing was queued (an event that names no file)' }),
  queued: z.array(receivedPath).optional().meta({ description: 'the paths queued (or merged into a queued folder)' }),
  unmatched: z.array(receivedPath).optional().meta({ description: 'the paths in no library of any media server: recorded as unmatched, not queued' }),
  ignoredPaths: z.array(receivedPath).optional().meta({ description: 'the paths SERVER_IGNORE_LIST kept out' }),
  warning: z.string().optional().meta({ description: 'with 202: which paths reach no library, and the SERVER_PATH_MAPPINGS change that fixes it' }),
});
export type ReceivedReply = z.infer<typeof receivedReply>;

export const explainQuery = z.object({ path: z.string().min(1) });

/**
 * The JSON Schema (draft-07, as Fastify's validator reads it) of a zod type. `input` describes what a client
 * sends (defaults apply, extra keys are let through as before); `output` what the service answers.
 */
export function jsonSchema(type: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
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
