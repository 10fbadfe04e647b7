// /<SERVER_PASS>: webhooks and manual requests in (POST/PUT), the manual scan page out (GET).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { StorageError, type Admission } from '../intake.js';
import { parseScanBody, type TriggerResult } from '../triggers/index.js';
import type { AppDeps } from './app.js';
import { manualPage, type PageOutcome } from './page.js';
import { PathRefused } from '../paths/gate.js';

type Params = { secret: string };

export const scanRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const { logger } = deps;

  const wantsHtml = (req: FastifyRequest) => (req.headers.accept ?? '').includes('text/html');

  app.get<{ Params: Params }>('/:secret', async (_req, reply) => {
    if (!deps.allowManualScan) return reply.code(403).send({ error: MANUAL_OFF });
    return reply.type('text/html; charset=utf-8').send(manualPage({ links: pageLinks() }));
  });

  const receive = async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const userAgent = req.headers['user-agent'];
    const result: TriggerResult = parseScanBody(req.body ?? {}, userAgent);
    const client = req.ip;

    if (result.kind === 'invalid') {
      logger.info({ client, userAgent: shown(userAgent ?? '') }, `Invalid scan request from '${client}': ${shown(result.reason)}`);
      deps.activity?.emit('request', { source: 'unknown', event: 'unknown', folders: 0, outcome: 'rejected' });
      return reply.code(400).send({ error: shown(result.reason) });
    }
    if (result.kind === 'test') {
      logger.info({ client, source: result.source, event: result.event }, `Client '${client}' made a test request.`);
      deps.activity?.emit('request', { source: result.source, event: result.event, folders: 0, outcome: 'test' });
      return reply.code(200).send({ ok: true, test: true });
    }
    if (result.kind === 'ignored') {
      logger.info({ client, source: result.source, event: shown(result.event) }, `Nothing to scan for ${result.source} '${shown(result.event)}' from '${client}': ${shown(result.reason)}`);
      deps.activity?.emit('request', { source: result.source, event: result.event, folders: 0, outcome: 'ignored' });
      return reply.code(200).send({ ok: true, ignored: shown(result.reason) });
    }

    const manual = result.source === 'manual';
    if (manual && !deps.allowManualScan) {
      logger.warn({ client }, `Refused a manual scan request from '${client}': SERVER_ALLOW_MANUAL_SCAN is false.`);
      return reply.code(403).send({ error: MANUAL_OFF });
    }

    let admissions: Admission[];
    try {
      admissions = await deps.intake.submit(result.requests, client);
    } catch (err) {
      if (err instanceof PathRefused) {
        deps.activity?.emit('request', { source: result.source, event: result.event, folders: 0, outcome: 'rejected' });
        if (manual && wantsHtml(req)) {
          const outcome: PageOutcome = { ok: false, title: 'Refused', lines: [err.message] };
          return reply.code(400).type('text/html; charset=utf-8').send(manualPage({ outcome, links: pageLinks() }));
        }
        return reply.code(400).send({ error: err.message, rule: err.rule });
      }
      if (err instanceof StorageError) {
        logger.error({ client, source: result.source, event: result.event }, `Could not queue a ${result.source} request: ${err.message}. Answered 503 so the sender records a failure.`);
        return reply.code(503).send({ error: err.message });
      }
      throw err;
    }
    const queued = admissions.filter((a) => a.folder !== undefined && !a.unmatched);
    const unmatched = admissions.filter((a) => a.unmatched);
    deps.activity?.emit('request', { source: result.source, event: result.event, folders: queued.length, outcome: queued.length ? 'queued' : 'ignored' });
    const summary = admissions.map((a) => ({
      path: a.request.path,
      mapped: a.mapped,
      folder: a.folder ?? null,
      ...(a.ignoredBy !== undefined ? { ignoredBy: a.ignoredBy } : {}),
      ...(a.merged !== undefined ? { merged: a.merged } : {}),
      ...(a.unmatched ? { unmatched: a.unmatched.summary } : {}),
    }));

    if (manual && wantsHtml(req)) {
      const a = admissions[0];
      const outcome: PageOutcome =
        a.ignoredBy !== undefined
          ? { ok: false, title: 'Not queued', lines: [`'${a.request.path}' matched '${a.ignoredBy}' from your SERVER_IGNORE_LIST.`] }
          : a.unmatched
            ? { ok: false, title: 'Not queued: in no library', lines: [a.unmatched.summary, a.unmatched.advice] }
            : {
              ok: true,
              title: a.merged ? 'Already queued — delay reset' : 'Queued',
              lines: [
                `Requested: ${a.request.path}`,
                a.match ? `Mapped to: ${a.mapped}` : `No path mapping matched; used as is: ${a.mapped}`,
                `Folder to scan: ${a.folder}`,
              ],
            };
      return reply.type('text/html; charset=utf-8').send(manualPage({ outcome, value: a.request.path, links: pageLinks() }));
    }
    // 202, not an error: the sender must not retry a path that no retry can fix; the warning says what can.
    if (unmatched.length) {
      return reply.code(202).send({ ok: true, queued: summary, warning: unmatched.map((a) => `${a.unmatched!.summary} ${a.unmatched!.advice}`).join(' ') });
    }
    return reply.code(200).send({ ok: true, queued: summary });
  };

  app.post<{ Params: Params }>('/:secret', { schema: receiveSchema }, receive);
  app.put<{ Params: Params }>('/:secret', { schema: receiveSchema }, receive);
};

const error = { type: 'object', properties: { error: { type: 'string' } } } as const;
const refusal = {
  type: 'object',
  properties: { error: { type: 'string' }, rule: { type: 'string', description: 'the path rule broken (docs/security.md), when a path was refused' } },
} as const;

/** Every manual entry point (page, form/curl POST, control API) answers this when manual scans are off. */
export const MANUAL_OFF = 'manual scans are off: set SERVER_ALLOW_MANUAL_SCAN to true in config.json to allow the manual page, manual POSTs and the API scan';

/** An echo of sender-chosen text (an event name, a reason quoting it) cut to a size fit for a log line. */
function shown(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} characters)` : text;
}

/** The answer to a request that was understood: 200, or 202 when some path reaches no library (see `warning`). */
const receivedBody = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    test: { type: 'boolean', description: 'a test request from the app; nothing queued' },
    ignored: { type: 'string', description: 'why nothing was queued (an event that names no file)' },
    queued: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          mapped: { type: 'string', description: 'after SERVER_PATH_MAPPINGS' },
          folder: { type: ['string', 'null'], description: 'the folder queued; null when ignored' },
          ignoredBy: { type: 'string', description: 'the SERVER_IGNORE_LIST entry that matched' },
          merged: { type: 'boolean', description: 'the folder was already queued: merged, delay reset' },
          unmatched: { type: 'string', description: 'in no library of any media server: recorded as unmatched, not queued' },
        },
      },
    },
    warning: { type: 'string', description: 'with 202: which paths reach no library, and the SERVER_PATH_MAPPINGS change that fixes it' },
  },
} as const;

/** What a webhook or manual request gets back (the HTML answer of the manual page is not described here). */
const receiveSchema = {
  summary: 'Receive a webhook (Sonarr, Radarr, Lidarr, Readarr, Plex/Jellyfin/Emby, Tdarr, Drive) or a manual scan request',
  params: { type: 'object', properties: { secret: { type: 'string', description: 'SERVER_PASS' } }, required: ['secret'] },
  response: {
    200: receivedBody,
    202: receivedBody,
    400: refusal,
    401: error,
    403: error,
    503: error,
  },
} as const;

/** Links shown under the manual page (relative, so the secret never has to be written into HTML). */
function pageLinks(): { href: string; label: string }[] {
  return [];
}
