// /api/<SERVER_PASS>/...: the JSON API to see and steer the relay (queue, history, targets, drive; scan,
// retry, drop), described by its route schemas and served as OpenAPI at /api/<SERVER_PASS>/openapi.json.
import swagger from '@fastify/swagger';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { StorageError } from '../intake.js';
import type { AppDeps } from './app.js';
import { PathRefused } from '../paths/gate.js';
import { MANUAL_OFF } from './scan.js';
import { steer, type ActionResult } from './steer.js';
import { driveView, historyView, queueView } from './views.js';

const secretParam = {
  type: 'object',
  properties: { secret: { type: 'string', description: 'your SERVER_PASS' } },
  required: ['secret'],
} as const;
const error = { type: 'object', properties: { error: { type: 'string' } } } as const;
const nullableString = { type: ['string', 'null'] } as const;
const folderBody = {
  type: 'object',
  properties: { folder: { type: 'string', minLength: 1, description: 'the folder as shown in the queue or history' } },
  required: ['folder'],
} as const;
const actionReply = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, folder: { type: 'string' }, done: { type: 'string' }, error: { type: 'string' } },
} as const;
const queuedFolder = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    folder: { type: 'string' },
    priority: { type: 'integer' },
    state: { type: 'string', enum: ['waiting', 'dispatching'] },
    dueAt: { type: 'number' },
    dueInMs: { type: 'number' },
    firstAt: { type: 'number' },
    lastAt: { type: 'number' },
    requests: { type: 'integer' },
    source: { type: 'string' },
    event: { type: 'string' },
    fileChecks: { type: 'integer' },
    lastError: nullableString,
    received: { type: ['string', 'null'], description: 'the path as the sender sent it, before SERVER_PATH_MAPPINGS' },
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          target: { type: 'string' },
          state: { type: 'string', enum: ['pending', 'following', 'scanned', 'confirmed', 'not-found', 'unconfirmed', 'unmatched'] },
          attempts: { type: 'integer' },
          nextAt: { type: 'number' },
          lastError: nullableString,
          detail: nullableString,
          deliveredAt: { type: ['number', 'null'] },
        },
      },
    },
  },
} as const;
const finishedScan = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    folder: { type: 'string' },
    source: { type: 'string' },
    event: { type: 'string' },
    requests: { type: 'integer' },
    askedAt: { type: 'number' },
    finishedAt: { type: 'number' },
    target: nullableString,
    outcome: { type: 'string', description: 'scanned, confirmed, not-found, unconfirmed, unmatched, exhausted or dropped' },
    detail: nullableString,
    attempts: { type: 'integer' },
    deliveryMs: { type: ['integer', 'null'], description: 'ms from the folder being ready to the server accepting the scan' },
    followMs: { type: ['integer', 'null'], description: 'ms from the server accepting the scan to the follow-up outcome; null when nothing was followed' },
    received: { type: ['string', 'null'], description: 'the path as the sender sent it, before SERVER_PATH_MAPPINGS' },
  },
} as const;
/** What POST /scan answers: 200 when queued (or ignored), 202 when the path reaches no library. */
const scanReply = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    path: { type: 'string' },
    mapped: { type: 'string' },
    folder: nullableString,
    merged: { type: 'boolean' },
    ignoredBy: { type: 'string' },
    unmatched: { type: 'string', description: 'with 202: in no library of any media server, and what to change' },
  },
} as const;
const targetHealth = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    kind: { type: 'string' },
    up: { type: 'boolean' },
    lastError: { type: 'string' },
    downSince: { type: 'number' },
    nextProbeAt: { type: 'number' },
    inFlight: { type: 'integer' },
    scanned: { type: 'integer' },
    failed: { type: 'integer' },
  },
} as const;

export const controlApiRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  // Registered inside this plugin, so the document describes this API only (not webhooks or pages).
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'scanrelay API',
        version: '0.1.0',
        description: 'See and steer the relay. Every path starts with /api/<SERVER_PASS>/. plex_autoscan\'s GET/POST /api/<SERVER_PASS>?cmd=queue_count is kept as it was.',
      },
    },
  });

  const actions = steer(deps, 'the API');
  const answer = (reply: FastifyReply, r: ActionResult) => (r.ok ? r : reply.code(404).send(r));

  app.get('/api/:secret/queue', {
    schema: {
      summary: 'Folders waiting to be scanned, first by priority then due time, with each target\'s delivery state',
      tags: ['queue'],
      params: secretParam,
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 5000, default: 500 } } },
      response: { 200: { type: 'object', properties: { count: { type: 'integer' }, folders: { type: 'array', items: queuedFolder } } }, 401: error },
    },
  }, async (req) => {
    const { limit } = req.query as { limit: number };
    return { count: deps.queue.count(), folders: queueView(deps, limit) };
  });

  app.get('/api/:secret/history', {
    schema: {
      summary: 'Finished folders, newest first: one row per target (or one row for exhausted/dropped folders)',
      tags: ['queue'],
      params: secretParam,
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 10000, default: 100 } } },
      response: { 200: { type: 'object', properties: { history: { type: 'array', items: finishedScan } } }, 401: error },
    },
  }, async (req) => ({ history: historyView(deps, (req.query as { limit: number }).limit) }));

  app.get('/api/:secret/targets', {
    schema: {
      summary: 'Media servers and their health; `held` says why all scans wait (a missing anchor file)',
      tags: ['targets'],
      params: secretParam,
      response: { 200: { type: 'object', properties: { held: nullableString, targets: { type: 'array', items: targetHealth } } }, 401: error },
    },
  }, async () => ({ held: deps.processor?.held ?? null, targets: deps.processor?.health() ?? [] }));

  app.get('/api/:secret/drive', {
    schema: {
      summary: "The Google Drive monitor's state (null when it is not running)",
      tags: ['drive'],
      params: secretParam,
      response: { 200: { type: 'object', properties: { drive: {} } }, 401: error },
    },
  }, async () => ({ drive: driveView(deps) ?? null }));

  app.post('/api/:secret/scan', {
    schema: {
      summary: 'Ask for a scan of a file or folder, like the manual page (path mappings and the ignore list apply)',
      tags: ['actions'],
      params: secretParam,
      body: { type: 'object', properties: { path: { type: 'string', minLength: 1 }, refresh: { type: 'string', enum: ['item'], description: 'also refresh the metadata of the item(s) holding the file' } }, required: ['path'] },
      response: {
        200: scanReply,
        202: scanReply,
        400: { type: 'object', properties: { error: { type: 'string' }, rule: { type: 'string', description: 'the path rule broken (docs/security.md)' } } },
        401: error,
        403: error,
        503: error,
      },
    },
  }, async (req, reply) => {
    const { path, refresh } = req.body as { path: string; refresh?: 'item' };
    if (!deps.allowManualScan) {
      deps.logger.warn({ client: req.ip }, `Refused an API scan request from '${req.ip}': SERVER_ALLOW_MANUAL_SCAN is false.`);
      return reply.code(403).send({ error: MANUAL_OFF });
    }
    try {
      const [a] = await deps.intake.submit([{ path, source: 'api', event: 'Manual', kind: 'auto', ...(refresh ? { refresh } : {}) }], req.ip);
      deps.activity?.emit('request', { source: 'api', event: 'Manual', folders: a.folder && a.ignoredBy === undefined ? 1 : 0, outcome: a.ignoredBy === undefined ? 'queued' : 'ignored' });
      const body = {
        ok: true,
        path,
        mapped: a.mapped,
        folder: a.ignoredBy === undefined ? (a.folder ?? null) : null,
        ...(a.merged !== undefined ? { merged: a.merged } : {}),
        ...(a.ignoredBy !== undefined ? { ignoredBy: a.ignoredBy } : {}),
        ...(a.unmatched ? { unmatched: `${a.unmatched.summary} ${a.unmatched.advice}` } : {}),
      };
      return a.unmatched ? reply.code(202).send(body) : body;
    } catch (err) {
      if (err instanceof PathRefused) return reply.code(400).send({ error: err.message, rule: err.rule });
      if (err instanceof StorageError) return reply.code(503).send({ error: err.message });
      throw err;
    }
  });

  for (const [name, summary] of [
    ['scan-now', 'Skip the rest of a queued folder\'s delay and any retry wait; the path as received is mapped again with the current SERVER_PATH_MAPPINGS'],
    ['retry', 'Try a queued folder again now, or queue a finished (unmatched, exhausted, dropped) folder again; the path as received is mapped again first'],
    ['drop', 'Remove a folder from the queue without scanning it (recorded in history)'],
  ] as const) {
    app.post(`/api/:secret/queue/${name}`, {
      schema: { summary, tags: ['actions'], params: secretParam, body: folderBody, response: { 200: actionReply, 401: error, 404: actionReply } },
    }, async (req, reply) => {
      const { folder } = req.body as { folder: string };
      return answer(reply, await (name === 'scan-now' ? actions.scanNow(folder) : name === 'retry' ? actions.retry(folder) : actions.drop(folder)));
    });
  }

  if (deps.explain) {
    const explain = deps.explain;
    app.get('/api/:secret/explain', {
      schema: {
        summary: 'The path doctor: every step a path takes, and the closest candidates and a suggested mapping when nothing matches',
        tags: ['doctor'],
        params: secretParam,
        querystring: { type: 'object', properties: { path: { type: 'string', minLength: 1 } }, required: ['path'] },
      },
    }, async (req) => explain((req.query as { path: string }).path));
  }

  app.get('/api/:secret/openapi.json', { schema: { hide: true, params: secretParam } }, async () => app.swagger());
};
