// /<SERVER_PASS>: webhooks and manual requests in (POST/PUT), the manual scan page out (GET).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { StorageError, TooManyPaths, type Admission } from '../intake/intake.js';
import { parseScanBody, type TriggerResult } from '../triggers/index.js';
import { rule } from './access.js';
import type { AppDeps } from './deps.js';
import { manualOffPage, manualPage, type PageOutcome } from './page.js';
import { PathRefused } from '../paths/gate.js';
import { keepStart } from '../text-cut.js';
import { errorReply, jsonSchema, receivedReply, refusalReply, secretParams, type ReceivedReply } from './schemas.js';

type Params = { secret: string };

export const scanRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const { logger } = deps;

  const wantsHtml = (req: FastifyRequest) => (req.headers.accept ?? '').includes('text/html');

  app.get<{ Params: Params }>('/:secret', rule('secret'), async (req, reply) => {
    // A person who opens the printed URL in a browser learns what it is for; a client asking JSON gets the 403.
    if (!deps.allowManualScan) return wantsHtml(req) ? reply.type('text/html; charset=utf-8').send(manualOffPage()) : reply.code(403).send({ error: MANUAL_OFF });
    return reply.type('text/html; charset=utf-8').send(manualPage({}));
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
      return reply.code(200).send({ ok: true, test: true } satisfies ReceivedReply);
    }
    if (result.kind === 'ignored') {
      logger.info({ client, source: result.source, event: shown(result.event) }, `Nothing to scan for ${result.source} '${shown(result.event)}' from '${client}': ${shown(result.reason)}`);
      deps.activity?.emit('request', { source: result.source, event: result.event, folders: 0, outcome: 'ignored' });
      return reply.code(200).send({ ok: true, ignored: shown(result.reason) } satisfies ReceivedReply);
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
          return reply.code(400).type('text/html; charset=utf-8').send(manualPage({ outcome }));
        }
        return reply.code(400).send({ error: err.message, rule: err.rule });
      }
      if (err instanceof TooManyPaths) {
        deps.activity?.emit('request', { source: result.source, event: result.event, folders: 0, outcome: 'rejected' });
        return reply.code(413).send({ error: err.message });
      }
      if (err instanceof StorageError) {
        logger.error({ client, source: result.source, event: result.event }, `Could not queue a ${result.source} request: ${err.message}. Answered 503 so the sender records a failure.`);
        return reply.code(503).send({ error: err.message });
      }
      throw err;
    }
    const unmatched = admissions.filter((a) => a.unmatched);
    const item = (a: Admission) => ({
      path: a.request.path,
      mapped: a.mapped,
      folder: a.folder ?? null,
      ...(a.ignoredBy !== undefined ? { ignoredBy: a.ignoredBy } : {}),
      ...(a.merged !== undefined ? { merged: a.merged } : {}),
      ...(a.unmatched ? { unmatched: a.unmatched.summary } : {}),
    });
    // Each path under the word history and /metrics use for it: queued, unmatched (in no library), or ignored.
    const lists = {
      queued: admissions.filter((a) => a.ignoredBy === undefined && !a.unmatched).map(item),
      ...(unmatched.length ? { unmatched: unmatched.map(item) } : {}),
      ...(admissions.some((a) => a.ignoredBy !== undefined) ? { ignoredPaths: admissions.filter((a) => a.ignoredBy !== undefined).map(item) } : {}),
    } satisfies Partial<ReceivedReply>;

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
      return reply.type('text/html; charset=utf-8').send(manualPage({ outcome, value: a.request.path }));
    }
    // 202, not an error: the sender must not retry a path that no retry can fix; the warning says what can.
    if (unmatched.length) {
      return reply.code(202).send({ ok: true, ...lists, warning: unmatched.map((a) => `${a.unmatched!.summary} ${a.unmatched!.advice}`).join(' ') } satisfies ReceivedReply);
    }
    return reply.code(200).send({ ok: true, ...lists } satisfies ReceivedReply);
  };

  app.post<{ Params: Params }>('/:secret', { schema: receiveSchema, ...rule('secret') }, receive);
  app.put<{ Params: Params }>('/:secret', { schema: receiveSchema, ...rule('secret') }, receive);
};

/** Every manual entry point (page, form/curl POST, control API) answers this when manual scans are off. */
export const MANUAL_OFF = 'manual scans are off: set SERVER_ALLOW_MANUAL_SCAN to true in config.json to allow the manual page, manual POSTs and the API scan';

/** An echo of sender-chosen text (an event name, a reason quoting it) cut to a size fit for a log line. */
function shown(text: string): string {
  return text.length > 200 ? `${keepStart(text, 200)}… (${text.length} characters)` : text;
}

/** What a webhook or manual request gets back (the HTML answer of the manual page is not described here). */
const receiveSchema = {
  summary: 'Receive a webhook (Sonarr, Radarr, Lidarr, Readarr, Plex/Jellyfin/Emby, Tdarr, Drive) or a manual scan request',
  params: jsonSchema(secretParams(), 'input'),
  response: {
    200: jsonSchema(receivedReply()),
    202: jsonSchema(receivedReply()),
    400: jsonSchema(refusalReply()),
    401: jsonSchema(errorReply()),
    403: jsonSchema(errorReply()),
    413: jsonSchema(errorReply()),
    503: jsonSchema(errorReply()),
  },
};
