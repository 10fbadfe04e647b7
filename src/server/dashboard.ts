// /<SERVER_PASS>/dashboard and /<SERVER_PASS>/doctor: the pages to watch the relay, steer its queue and
// find out why a path does not scan.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { systemClock } from '../clock.js';
import { rule } from './access.js';
import type { AppDeps } from './deps.js';
import { appsView, driveView, reconcileView, historyView, notifyView, queueView } from './views.js';
import { steer } from './steer.js';
import { chartData, FailureLog } from './chart-data.js';
import type { DashboardView } from './dashboard-page.js';
import { weakPassReason } from './secret.js';
import { keepStart } from '../text-cut.js';
import { typed } from '../version.js';

type Params = { secret: string };
const secret = rule('secret');
const ACTIONS = ['scan-now', 'retry', 'drop'] as const;

export const dashboardRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const weak = weakPassReason(deps.secret);
  const alert = weak
    ? `Your SERVER_PASS is weak: ${weak}. Anyone on your network who guesses it can queue scans and see your library paths. Fix: run \`${typed('update-config --new-pass')}\`, restart, and give Sonarr, Radarr and your other apps the new URL.`
    : undefined;
  const clock = deps.clock ?? systemClock;
  const failures = new FailureLog(deps.activity, () => clock.now());
  // The app is built as the service starts: the processor's and the apps' counts start with it.
  const startedAt = clock.now();
  app.addHook('onClose', async () => failures.close());
  const view = (notice?: string): DashboardView => ({
    alert,
    now: clock.now(),
    startedAt,
    queue: queueView(deps, 200),
    count: deps.queue.count(),
    history: historyView(deps, 50),
    targets: deps.processor?.health() ?? [],
    held: deps.processor?.held ?? null,
    hashHolds: deps.hashHold && { list: deps.hashHold.list(), limit: deps.hashHold.limit },
    drive: driveView(deps),
    notify: notifyView(deps),
    apps: appsView(deps),
    reconcile: reconcileView(deps),
    notice,
    charts: chartData(deps.queue.db, clock.now(), { failures: failures.list() }),
  });
  // The page templates and charts load when a page is first asked for: an idle relay never draws one.
  const pages = () => import('./dashboard-page.js');
  const doctorPage = async (...args: Parameters<typeof import('./doctor-page.js').doctorPage>) => (await import('./doctor-page.js')).doctorPage(...args);
  const html = (reply: FastifyReply, body: string) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);

  app.get<{ Params: Params; Querystring: { notice?: string } }>('/:secret/dashboard', secret, async (req, reply) =>
    html(reply, (await pages()).dashboardPage(view(typeof req.query.notice === 'string' ? keepStart(req.query.notice, 500) : undefined))),
  );
  app.get<{ Params: Params }>('/:secret/dashboard/live', secret, async (_req, reply) => html(reply, (await pages()).dashboardLive(view())));

  const actions = steer(deps, 'the dashboard');
  for (const action of ACTIONS) {
    app.post<{ Params: Params; Body: { folder?: unknown } }>(`/:secret/dashboard/${action}`, secret, async (req, reply) => {
      const folder = typeof req.body?.folder === 'string' ? req.body.folder : '';
      const result = await (action === 'scan-now' ? actions.scanNow(folder) : action === 'retry' ? actions.retry(folder) : actions.drop(folder));
      const notice = result.ok ? `${result.done}: ${result.folder}` : result.error;
      // Post/redirect/get: a reload does not repeat the action. Relative, so the secret is not repeated either.
      return reply.code(303).header('location', `../dashboard?notice=${encodeURIComponent(notice)}`).send();
    });
  }

  app.get<{ Params: Params; Querystring: { path?: string } }>('/:secret/doctor', secret, async (req, reply) => {
    const path = typeof req.query.path === 'string' ? req.query.path.trim() : '';
    // Without a path, the page also shows where each connected app's root folders go.
    const apps = deps.appRoots ? await deps.appRoots().catch(() => undefined) : undefined;
    if (!path) return html(reply, await doctorPage({ apps, reconcile: deps.reconcile?.() }));
    if (!deps.explain) return html(reply, await doctorPage({ path, error: 'The path doctor is not available in this setup.' }));
    try {
      return html(reply, await doctorPage({ path, explanation: await deps.explain(path) }));
    } catch (err) {
      return html(reply, await doctorPage({ path, error: `The doctor failed: ${(err as Error).message}` }));
    }
  });
};
