// One app's reconcile: its files (app-files.ts) mapped as its webhooks' paths are (SERVER_PATH_MAPPINGS, then each
// target's PATH_MAPPINGS and INCLUDE/EXCLUDE), compared with each media server's items (server-items.ts,
// compare.ts), one server at a time; the folders of the files some server is missing queued through the intake as
// the catch-up queues (src/arr/caught-up-queue.ts, source `<app>-reconcile`), unless held back. Nothing is ever
// deleted: an item the app does not know is only reported.
import { arrApp } from '../arr/apps.js';
import { AskedFolders } from '../arr/asked.js';
import { queueCaughtUp } from '../arr/caught-up-queue.js';
import type { ArrClient } from '../arr/client.js';
import type { Clock } from '../clock.js';
import type { ArrEntry } from '../config/arr-schema.js';
import type { Intake } from '../intake/intake.js';
import type { Logger } from '../log/logger.js';
import { isInside } from '../paths/folder.js';
import { mapPath, type PathMappings } from '../paths/mapping.js';
import type { ScanRequest, Source } from '../request.js';
import type { Library, Target } from '../scan.js';
import { appFiles } from './app-files.js';
import type { Audit, ReconcileAudits } from './audits.js';
import { Comparison, type Expected } from './compare.js';
import { librariesConcerned, readItems } from './server-items.js';

/** A server that lists fewer than this share of its items at the last audit queues nothing (a mount gone, a library emptied). */
export const SHRINK_HELD = 0.5;
/** Below this many items at the last audit, a drop says nothing. */
export const SHRINK_MIN_ITEMS = 20;
/** The paths kept of each list for the doctor page. */
const SAMPLES = 20;

export interface AuditDeps {
  targets: readonly Target[];
  /** SERVER_PATH_MAPPINGS: the app's paths as the intake maps its webhooks' paths. */
  pathMappings: PathMappings;
  audits: ReconcileAudits;
  clock: Clock;
  logger: Logger;
  /** Where missing files' folders are queued; without it (a dry run) nothing is. */
  queue?: { intake: Intake; scanDelayMs: number; scanDelays?: Record<string, number>; chunk: number };
}

/** What one run tells of one app × server, with every path (the audit saved keeps a few). */
export interface TargetReport extends Audit {
  missingPaths: string[];
  unknownPaths: string[];
}

export interface AppReport {
  app: string;
  type: string;
  /** The app's files, all targets alike. */
  files: number;
  /** Why the app could not be read (nothing compared, nothing queued). */
  error: string | null;
  /** Why nothing was queued though the app was read (it listed no file). */
  held: string | null;
  targets: TargetReport[];
  /** Folders handed to the intake (files, before the intake folds them into folders). */
  queued: number;
}

export interface Progress {
  /** "sonarr 'tv': files", "… plex: items": what is read now, how far, of how many (0 when unknown). */
  (step: string, done: number, total: number): void;
}

export async function auditApp(entry: ArrEntry, client: ArrClient, deps: AuditDeps, progress?: Progress): Promise<AppReport> {
  const report: AppReport = { app: entry.NAME, type: entry.TYPE, files: 0, error: null, held: null, targets: [], queued: 0 };
  let files: string[];
  let roots: string[];
  try {
    const status = await client.status();
    const arr = arrApp(entry.TYPE, status.version);
    roots = await client.rootFolders();
    files = await appFiles(client, arr, (done, total) => progress?.(`${client.who}: files of item`, done, total));
  } catch (err) {
    report.error = client.scrub((err as Error).message);
    deps.logger.warn({ app: client.who }, `Reconcile of ${client.who}: the app could not be read, nothing is compared or queued: ${report.error}`);
    return report;
  }
  report.files = files.length;
  if (files.length === 0) {
    report.held = `${client.who} listed no media file: nothing is compared or queued (an app that answers nothing is not taken for an empty library)`;
    deps.logger.warn({ app: client.who }, report.held);
    return report;
  }
  const mapped = files.map((received) => ({ received, path: mapPath(received.normalize('NFC'), deps.pathMappings).path }));
  const mappedRoots = roots.map((r) => mapPath(r.normalize('NFC'), deps.pathMappings).path);
  const toQueue = new Set<string>();
  // One server at a time: only one server's items are held at once.
  for (const target of deps.targets) {
    if (!target.files || !target.libraries) continue;
    const result = await auditTarget(entry, target, mapped, mappedRoots, deps, progress);
    report.targets.push(result);
    deps.audits.save(result);
    if (!result.error && !result.held) for (const m of result.missingPaths) toQueue.add(m);
  }
  if (deps.queue && toQueue.size) {
    const source = `${entry.TYPE}-reconcile` as Source;
    const requests: ScanRequest[] = [...toQueue].map((path) => ({ path, source, event: 'Reconcile', kind: 'file' }));
    const now = deps.clock.now();
    const q = deps.queue;
    await queueCaughtUp({ intake: q.intake, asked: new AskedFolders(), scanDelayMs: q.scanDelayMs, scanDelays: q.scanDelays, chunk: q.chunk, client: `${client.who} reconcile` }, [{ requests, date: now }], now);
    report.queued = requests.length;
    deps.logger.info({ app: client.who, files: requests.length }, `Reconcile of ${client.who}: queued the folders of ${requests.length} file(s) a media server has no item for.`);
  }
  return report;
}

async function auditTarget(entry: ArrEntry, target: Target, mapped: Expected[], mappedRoots: string[], deps: AuditDeps, progress?: Progress): Promise<TargetReport> {
  const at = deps.clock.now();
  const base: TargetReport = { app: entry.NAME, target: target.name, at, files: 0, items: 0, missing: 0, unknown: 0, held: null, error: null, samples: { missing: [], unknown: [] }, missingPaths: [], unknownPaths: [] };
  try {
    const libraries = await target.libraries!({ fresh: true });
    const pathOf = target.pathOf ?? ((p: string) => ({ path: p }) as ReturnType<NonNullable<Target['pathOf']>>);
    const roots = mappedRoots.map((r) => pathOf(r).path);
    // The app's files this server should hold (let through by INCLUDE/EXCLUDE, inside one of its libraries), and
    // the libraries to read: those holding one of them or overlapping a root folder.
    const comparison = new Comparison(roots);
    const holding = new Set<Library>(librariesConcerned(libraries, roots));
    for (const m of mapped) {
      const t = pathOf(m.path);
      if (t.excluded) continue;
      const lib = libraries.find((l) => l.locations.some((loc) => isInside(t.path, loc)));
      if (!lib) continue;
      holding.add(lib);
      comparison.expect(m.received, t.path);
    }
    const concerned = libraries.filter((l) => holding.has(l));
    await readItems(target, concerned, (paths) => {
      comparison.page(paths);
      progress?.(`${target.name}: items`, comparison.items, 0);
    });
    const missing = comparison.missing();
    const { unknown, items: read } = comparison;
    const report: TargetReport = {
      ...base,
      files: comparison.files,
      items: read,
      missing: missing.length,
      unknown: unknown.length,
      samples: { missing: missing.slice(0, SAMPLES), unknown: unknown.slice(0, SAMPLES) },
      missingPaths: missing,
      unknownPaths: unknown,
    };
    const last = deps.audits.baseline(entry.NAME, target.name);
    if (last && last.items >= SHRINK_MIN_ITEMS && read < last.items * SHRINK_HELD && comparison.files >= last.files * SHRINK_HELD && missing.length > 0) {
      report.held =
        `${target.name} lists ${read} item(s) where it listed ${last.items} at the last audit, while ${entry.NAME} still has ${comparison.files} file(s) for it: ` +
        `nothing is queued (a library emptied, a mount gone, a token for another server?). Check the server's libraries; the next audit after it lists them again queues what is missing`;
      deps.logger.warn({ app: entry.NAME, target: target.name }, `Reconcile of ${entry.NAME} with ${report.held}.`);
    }
    return report;
  } catch (err) {
    const error = (err as Error).message;
    deps.logger.warn({ app: entry.NAME, target: target.name }, `Reconcile of ${entry.NAME}: ${target.name} could not be read, nothing is queued for it: ${error}`);
    return { ...base, error };
  }
}
