// /api/<SERVER_PASS>/...: the JSON API to see and steer the relay (queue, history, held, targets, drive; scan,
// retry, drop). Its schemas come from the zod types of schemas.ts; the OpenAPI document at
// /api/<SERVER_PASS>/openapi.json is made from the routes registered here (openapi.ts, on its first request).
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type * as z from 'zod/mini';
import { StorageError } from '../intake/intake.js';
import { ConfigError } from '../config/error.js';
import { rule } from './access.js';
import type { AppDeps } from './deps.js';
import { PathRefused } from '../paths/gate.js';
import { MANUAL_OFF } from './scan.js';
import type { DocumentedRoute } from './openapi.js';
import {
  actionResult,
  arrReloadReply,
  driveReply,
  errorReply,
  explainQuery,
  folderBody,
  heldReply,
  historyQuery,
  historyReply,
  jsonSchema,
  queueQuery,
  queueReply,
  refusalReply,
  scanBody,
  scanReply,
  secretParams,
  targetsReply,
  type ActionResult,
  type ScanReply,
  type TargetsReply,
} from './schemas.js';
import { steer } from './steer.js';
import { driveView, historyView, queueView } from './views.js';

const secret = rule('secret');

export const controlApiRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  // Every route below as registered, for the OpenAPI document.
  const routes: DocumentedRoute[] = [];
  app.addHook('onRoute', (route) => void routes.push(route));
  // The JSON schemas are made here, as the routes register, and kept by Fastify; the zod types are let go.
  const params = jsonSchema(secretParams(), 'input');
  const error = jsonSchema(errorReply());
  const action = jsonSchema(actionResult());
  const scanAnswer = jsonSchema(scanReply());
  const actions = steer(deps, 'the API');
  const answer = (reply: FastifyReply, r: ActionResult) => (r.ok ? r : reply.code(404).send(r));

  app.get('/api/:secret/queue', {
    ...secret,
    schema: {
      summary: 'Folders waiting to be scanned, first by priority then due time, with each target\'s delivery state',
      tags: ['queue'],
      params,
      querystring: jsonSchema(queueQuery(), 'input'),
      response: { 200: jsonSchema(queueReply()), 401: error },
    },
  }, async (req) => {
    const { limit } = req.query as z.output<ReturnType<typeof queueQuery>>;
    return { count: deps.queue.count(), folders: queueView(deps, limit) };
  });

  app.get('/api/:secret/history', {
    ...secret,
    schema: {
      summary: 'Finished folders, newest first: one row per target (or one row for exhausted/dropped folders)',
      tags: ['queue'],
      params,
      querystring: jsonSchema(historyQuery(), 'input'),
      response: { 200: jsonSchema(historyReply()), 401: error },
    },
  }, async (req) => ({ history: historyView(deps, (req.query as z.output<ReturnType<typeof historyQuery>>).limit) }));

  app.get('/api/:secret/targets', {
    ...secret,
    schema: {
      summary: 'Media servers and their health; `held` says why all scans wait (a missing anchor file)',
      tags: ['targets'],
      params,
      response: { 200: jsonSchema(targetsReply()), 401: error },
    },
  }, async (): Promise<TargetsReply> => ({ held: deps.processor?.held ?? null, targets: deps.processor?.health() ?? [] }));

  app.get('/api/:secret/held', {
    ...secret,
    schema: {
      summary: "Requests waiting for their file's SHA-256 (autopulse's hash=), oldest first, and the cap on them",
      tags: ['queue'],
      params,
      response: { 200: jsonSchema(heldReply()), 401: error },
    },
  }, async () => ({ count: deps.hashHold?.size ?? 0, limit: deps.hashHold?.limit ?? 0, held: deps.hashHold?.list() ?? [] }));

  app.get('/api/:secret/drive', {
    ...secret,
    schema: {
      summary: "The Google Drive monitor's state (null when it is not running)",
      tags: ['drive'],
      params,
      response: { 200: jsonSchema(driveReply()), 401: error },
    },
  }, async () => ({ drive: driveView(deps) ?? null }));

  app.post('/api/:secret/scan', {
    ...secret,
    schema: {
      summary: 'Ask for a scan of a file or folder, like the manual page (path mappings and the ignore list apply)',
      tags: ['actions'],
      params,
      body: jsonSchema(scanBody(), 'input'),
      response: {
        200: scanAnswer,
        202: scanAnswer,
        400: jsonSchema(refusalReply()),
        401: error,
        403: error,
        503: error,
      },
    },
  }, async (req, reply) => {
    const { path, refresh, libraryRoot } = req.body as z.input<ReturnType<typeof scanBody>>;
    if (!deps.allowManualScan) {
      deps.logger.warn({ client: req.ip }, `Refused an API scan request from '${req.ip}': SERVER_ALLOW_MANUAL_SCAN is false.`);
      return reply.code(403).send({ error: MANUAL_OFF });
    }
    try {
      const asked = { ...(refresh ? { refresh } : {}), ...(libraryRoot ? { libraryRoot } : {}) };
      const [a] = await deps.intake.submit([{ path, source: 'api', event: 'Manual', kind: 'auto', ...asked }], req.ip);
      const body: ScanReply = {
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
    ...secret,
      schema: { summary, tags: ['actions'], params, body: jsonSchema(folderBody(), 'input'), response: { 200: action, 401: error, 404: action } },
    }, async (req, reply) => {
      const { folder } = req.body as z.input<ReturnType<typeof folderBody>>;
      return answer(reply, await (name === 'scan-now' ? actions.scanNow(folder) : name === 'retry' ? actions.retry(folder) : actions.drop(folder)));
    });
  }

  if (deps.reloadArr) {
    const reloadArr = deps.reloadArr;
    app.post('/api/:secret/arr/reload', {
      ...secret,
      schema: {
        summary: "Read config.json's ARR entries again: an app added is caught up at once, one changed starts again with its history cursor kept, one removed stops (scanrelay connect calls this)",
        tags: ['actions'],
        params,
        response: { 200: jsonSchema(arrReloadReply()), 401: error, 422: error },
      },
    }, async (_req, reply) => {
      try {
        return await reloadArr();
      } catch (err) {
        if (err instanceof ConfigError) return reply.code(422).send({ error: err.message });
        throw err;
      }
    });
  }

  if (deps.explain) {
    const explain = deps.explain;
    app.get('/api/:secret/explain', {
    ...secret,
      schema: {
        summary: 'The path doctor: every step a path takes, and the closest candidates and a suggested mapping when nothing matches',
        tags: ['doctor'],
        params,
        querystring: jsonSchema(explainQuery(), 'input'),
      },
    }, async (req) => explain((req.query as z.input<ReturnType<typeof explainQuery>>).path));
  }

  // Describes this API only (not webhooks or pages). Made once, on the first request (openapi.ts).
  let document: Promise<unknown> | undefined;
  app.get('/api/:secret/openapi.json', { schema: { hide: true, params }, ...secret }, async () => {
    // The servers entry carries SERVER_BASE_PATH, so a client made from the document calls under it.
    document ??= import('./openapi.js')
      .then((m) => m.openapiDocument(routes))
      .then((doc) => ({ ...(doc as object), servers: [{ url: deps.basePath || '/' }] }))
      .catch((err: unknown) => {
        document = undefined; // the next request tries again
        throw err;
      });
    return document;
  });
};
