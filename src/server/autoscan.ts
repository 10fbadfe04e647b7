// /triggers/…: autoscan's routes and answers (200 with an empty body, 400 on a body it cannot read), behind the
// AUTOSCAN block's own HTTP Basic auth (the `basic` rule, checked by the gate in guard.ts), so the URLs already
// typed into every arr keep working.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AUTOSCAN_TRIGGER_TYPES, type AutoscanConfig } from '../config/autoscan-schema.js';
import { StorageError, TooManyPaths } from '../intake/intake.js';
import type { Logger } from '../log/logger.js';
import { PathRefused } from '../paths/gate.js';
import { mapPath, type PathMappings } from '../paths/mapping.js';
import type { ScanRequest, Source } from '../request.js';
import { parseScanBody } from '../triggers/index.js';
import { isPlainObject } from '../triggers/payload.js';
import { tdarrPaths } from '../triggers/tdarr.js';
import { rule } from './access.js';
import { answerPaths } from './autopulse.js';
import type { AppDeps } from './deps.js';

const basic = rule('basic');

const MANUAL_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>scanrelay: manual scan</title></head>
<body><h1>Scan a folder</h1><form method="get"><label>Folder <input name="dir" required size="60"></label>
<button>Scan</button></form></body></html>`;

export const autoscanRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const config = deps.autoscan;
  if (!config?.ENABLED) return;
  // The schema refuses this already; a config built in code must not open the routes either.
  if (!config.USER || !config.PASSWORD) throw new Error('AUTOSCAN is enabled without USER and PASSWORD: the /triggers/ routes need Basic auth');
  await app.register(async (scope) => triggerRoutes(scope, deps, config), { prefix: '/triggers' });
  // autopulse's public /stats, which Bazarr's "Test" button asks (GET <base>/stats): queue counts only, as /health.
  app.get('/stats', rule('public'), async () => {
    const s = deps.queue.summary();
    return { stats: { total: s.folders, processed: 0, retrying: 0, failed: 0, pending: s.waiting + s.dispatching }, speed: 0 };
  });
};

/** The routes served: the configured ones, or one per app named after it. */
function autoscanTriggers(a: AutoscanConfig): { NAME: string; TYPE: (typeof AUTOSCAN_TRIGGER_TYPES)[number]; REWRITE: Record<string, string[]> }[] {
  return a.TRIGGERS.length ? a.TRIGGERS : AUTOSCAN_TRIGGER_TYPES.map((t) => ({ NAME: t, TYPE: t, REWRITE: {} }));
}

async function triggerRoutes(app: Parameters<FastifyPluginAsync>[0], deps: AppDeps, config: AutoscanConfig): Promise<void> {
  const { logger } = deps;
  const triggers = new Map(autoscanTriggers(config).map((t) => [t.NAME.toLowerCase(), t]));

  // autoscan reads JSON itself and answers a bare 400 when it cannot; the app-wide parsers would answer with a JSON error.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  const queue = async (req: FastifyRequest, reply: FastifyReply, requests: ScanRequest[], what: string) => {
    if (requests.length === 0) return reply.code(200).send();
    try {
      await deps.intake.submit(requests, req.ip);
    } catch (err) {
      // Said as the webhook route says it (the intake logged it, at most once a minute per client).
      if (err instanceof PathRefused) return reply.code(400).send({ error: err.message, rule: err.rule });
      // autoscan answers with status codes alone; the log line says the limit.
      if (err instanceof TooManyPaths) return reply.code(413).send();
      if (err instanceof StorageError) {
        logger.error({ client: req.ip }, `Could not queue ${what}: ${err.message}. Answered 503 so the sender records a failure.`);
        return reply.code(503).send();
      }
      throw err;
    }
    return reply.code(200).send();
  };

  app.head('/manual', basic, async (_req, reply) => reply.code(200).send());
  const manual = async (req: FastifyRequest<{ Querystring: Record<string, string | string[]> }>, reply: FastifyReply) => {
    // autopulse's form of the same route (path=, hash=) answers as autopulse does; dir= stays autoscan's.
    if (req.query.path !== undefined) return answerPaths(req, reply, deps, 'manual', (p) => rewrite(p, config.MANUAL_REWRITE));
    const dirs = listOf(req.query.dir);
    if (dirs.length === 0) {
      if (req.method === 'GET') return reply.type('text/html; charset=utf-8').send(MANUAL_PAGE);
      logger.info({ client: req.ip }, `Manual trigger from '${req.ip}' named no folder: send one or more dir=<folder> query parameters.`);
      return reply.code(400).send();
    }
    // A NUL or any other character the path gate refuses is its 400, below.
    if (dirs.some((d) => d.trim() === '')) return badRequest(reply, logger, req.ip, 'a dir parameter is empty');
    const requests = dirs.map((dir): ScanRequest => ({
      path: rewrite(cleanPath(dir), config.MANUAL_REWRITE),
      source: 'manual',
      event: 'Manual',
      kind: 'folder',
    }));
    return queue(req, reply, requests, 'a manual trigger');
  };
  app.get('/manual', basic, manual);
  app.post('/manual', basic, manual);

  // Bazarr's "Autopulse" integration calls GET <url>?path=<folder of the video>; its documented URL ends in
  // /triggers/bazarr (morpheus65535/bazarr bazarr/utilities/autopulse_webhook.py).
  const bazarr = async (req: FastifyRequest<{ Querystring: Record<string, string | string[]> }>, reply: FastifyReply) =>
    answerPaths(req, reply, deps, 'bazarr', (p) => rewrite(p, config.MANUAL_REWRITE));
  app.head('/bazarr', basic, async (_req, reply) => reply.code(200).send());
  app.get('/bazarr', basic, bazarr);
  app.post('/bazarr', basic, bazarr);

  // Tdarr: its notification plugin's body, or {"path": …} from a Send Web Request flow (src/triggers/tdarr.ts).
  app.post('/tdarr', basic, async (req, reply) => {
    const body = readJson(req.body);
    if (body === undefined) return badRequest(reply, logger, req.ip, 'the body sent to /triggers/tdarr is not JSON');
    const result = tdarrPaths(body);
    if (result.kind === 'invalid') return badRequest(reply, logger, req.ip, result.reason);
    if (result.kind !== 'scan') {
      logger.info({ client: req.ip, event: result.event }, `Nothing to scan for Tdarr '${result.event}' on /triggers/tdarr.`);
      return reply.code(200).send();
    }
    return queue(req, reply, result.requests.map((r) => ({ ...r, path: rewrite(r.path, config.MANUAL_REWRITE) })), 'a Tdarr request on /triggers/tdarr');
  });

  app.post<{ Params: { drive: string } }>('/a-train/:drive', basic, async (req, reply) => {
    const body = readJson(req.body);
    if (!isPlainObject(body)) return badRequest(reply, logger, req.ip, 'the A-Train body is not a JSON object');
    // autoscan decodes with Go's encoding/json, which matches field names without regard to case.
    const field = (name: string) => Object.entries(body).find(([k]) => k.toLowerCase() === name)?.[1];
    const created = field('created') ?? [];
    const deleted = field('deleted') ?? [];
    if (!isStringList(created) || !isStringList(deleted)) return badRequest(reply, logger, req.ip, '"created" and "deleted" must be lists of paths');
    const drive = config.A_TRAIN_DRIVES[req.params.drive];
    const map = (p: string) => {
      const own = drive ? mapPath(p, drive) : undefined;
      return own?.match ? own.path : rewrite(p, config.A_TRAIN_REWRITE);
    };
    const requests: ScanRequest[] = [
      ...created.filter(usable).map((p): ScanRequest => ({ path: map(p), source: 'drive', event: 'Created', kind: 'folder' })),
      ...deleted.filter(usable).map((p): ScanRequest => ({ path: map(p), source: 'drive', event: 'Deleted', kind: 'folder', deleted: true })),
    ];
    return queue(req, reply, requests, 'an A-Train request');
  });

  app.post<{ Params: { name: string } }>('/:name', basic, async (req, reply) => {
    const trigger = triggers.get(req.params.name.toLowerCase());
    if (!trigger) return reply.code(404).send();
    const body = readJson(req.body);
    if (body === undefined) return badRequest(reply, logger, req.ip, `the body sent to /triggers/${trigger.NAME} is not JSON`);
    const result = parseScanBody(body, req.headers['user-agent']);
    if (result.kind === 'invalid') return badRequest(reply, logger, req.ip, result.reason);
    if (result.kind !== 'scan') {
      logger.info({ client: req.ip, trigger: trigger.NAME, event: result.event }, `Nothing to scan for '${result.event}' on /triggers/${trigger.NAME}.`);
      return reply.code(200).send();
    }
    const requests = result.requests.map((r) => ({ ...r, path: rewrite(r.path, trigger.REWRITE), source: r.source as Source }));
    return queue(req, reply, requests, `a ${trigger.TYPE} request on /triggers/${trigger.NAME}`);
  });
}

function badRequest(reply: FastifyReply, logger: Logger, client: string, why: string) {
  logger.info({ client }, `Bad request on /triggers/ from '${client}': ${why}. Answered 400.`);
  return reply.code(400).send();
}

function readJson(body: unknown): unknown {
  if (typeof body !== 'string') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function listOf(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function isStringList(value: unknown): value is unknown[] {
  return value === null || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
}

const usable = (p: unknown): p is string => typeof p === 'string' && p.trim() !== '' && !p.includes('\0');

function rewrite(path: string, mappings: PathMappings): string {
  return mapPath(path, mappings).path;
}

/** Go's path.Clean, as autoscan's manual trigger applies it: no "//", no "/./", ".." resolved, no trailing "/". */
export function cleanPath(path: string): string {
  const rooted = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const joined = out.join('/');
  return rooted ? `/${joined}` : joined || '.';
}
