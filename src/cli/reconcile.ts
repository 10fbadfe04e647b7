// `scanrelay reconcile [NAME...] [--dry-run]`: every media file each ARR app has, compared with the items of every
// media server (src/reconcile/); prints per app and server what is missing and what the app does not know, and
// queues the missing files' folders in the queue file, where a running server on the same file delivers them.
// Exits 1 naming the app or server that could not be read.
import { Command } from 'commander';
import { Presets, SingleBar } from 'cli-progress';
import { arrClient } from '../arr/client.js';
import { systemClock } from '../clock.js';
import { createLibraryJudge } from '../doctor/judge.js';
import { Intake } from '../intake/intake.js';
import { diskPathState } from '../paths/disk.js';
import { intakeSettingsOf } from '../paths/route.js';
import { Queue } from '../queue/store.js';
import { auditApp, type AppReport } from '../reconcile/audit.js';
import { ReconcileAudits } from '../reconcile/audits.js';
import { reportText } from '../reconcile/report-text.js';
import { buildTargets } from '../targets/build.js';
import { globalFlags, loadContext } from './context.js';

/** The most requests handed to the intake at once, as the catch-up hands them. */
const CHUNK = 500;
/** Paths listed per list unless --all. */
const LISTED = 50;

export function reconcileCommand(): Command {
  return new Command('reconcile')
    .description('compare every media file of each ARR app with the items of every media server; queue the folders of the missing ones')
    .argument('[name...]', 'the NAME of ARR entries (default: every entry)')
    .option('--dry-run', 'only say what is missing and what the apps do not know; queue nothing')
    .option('--all', `list every path (default: the first ${LISTED} of each list)`)
    .addHelpText(
      'after',
      `
For each app: its files (Sonarr: series, then episode files; Radarr: the movies' files; Lidarr: track files;
Readarr: book files), mapped as its webhooks' paths are (SERVER_PATH_MAPPINGS, then each target's PATH_MAPPINGS),
compared with the files of every Plex, Jellyfin and Emby item, read from their APIs page by page. No disk is read.

  missing            the app has the file, the server has no item for it: its folder is queued (not with --dry-run)
                     and a running 'scanrelay server' on the same --queuefile scans it
  unknown to the app an item under one of the app's root folders whose file the app does not list: only reported,
                     never deleted

A server that lists far fewer items than at its last audit (a library emptied, a mount gone) queues nothing and
says why. Exits 1, naming it, when an app or a server could not be read.

Examples:
  scanrelay reconcile --dry-run
  scanrelay reconcile sonarr-4k`,
    )
    .action(async (names: string[], opts: { dryRun?: boolean; all?: boolean }, cmd: Command) => {
      const { loaded, logger, settings } = loadContext(globalFlags(cmd), { consoleLog: false });
      const config = loaded.config;
      const wanted = names.map((n) => n.toLowerCase());
      const entries = names.length ? config.ARR.filter((e) => wanted.includes(e.NAME.toLowerCase())) : config.ARR;
      const unknown = names.filter((n) => !config.ARR.some((e) => e.NAME.toLowerCase() === n.toLowerCase()));
      if (entries.length === 0 || unknown.length) {
        const known = config.ARR.map((e) => e.NAME).join(', ');
        process.stderr.write(
          config.ARR.length === 0
            ? `ARR is empty in ${loaded.path}: add your apps there first ({"NAME": "sonarr", "TYPE": "sonarr", "URL": "http://sonarr:8989", "API_KEY": "…"}), see docs/guides/connecting-apps.md.\n`
            : `No ARR entry is named ${unknown.map((n) => `'${n}'`).join(', ')} in ${loaded.path}; the entries are: ${known}.\n`,
        );
        process.exitCode = 1;
        return;
      }
      const clock = systemClock;
      const targets = buildTargets(config, { clock, logger });
      if (!targets.some((t) => t.files)) {
        process.stderr.write(`No Plex, Jellyfin or Emby target is configured in ${loaded.path}: there is no media server to compare the apps with.\n`);
        process.exitCode = 1;
        return;
      }
      const queue = new Queue(settings.queuefile, clock, { delayMs: config.SERVER_SCAN_DELAY * 1000, maxWaitMs: config.SERVER_SCAN_MAX_WAIT * 1000, busyTimeoutMs: 5_000 });
      try {
        const intake = opts.dryRun
          ? undefined
          : new Intake({
              queue,
              logger,
              clock,
              pathState: diskPathState,
              judge: createLibraryJudge({ config, targets, now: () => clock.now() }),
              maxPaths: config.SERVER_MAX_REQUEST_PATHS,
              settings: intakeSettingsOf(config),
            });
        const audits = new ReconcileAudits(queue.db);
        const holder = audits.take(process.pid, clock.now());
        if (holder !== undefined) {
          process.stderr.write(`A reconcile is already running on the queue file '${settings.queuefile}' (PID ${holder}): run this again when it has ended.\n`);
          process.exitCode = 1;
          return;
        }
        const failed: string[] = [];
        for (const entry of entries) {
          const client = arrClient(entry, { clock });
          const bar = progressBar(client.who);
          let report: AppReport;
          try {
            report = await auditApp(
              entry,
              client,
              {
                targets,
                pathMappings: config.SERVER_PATH_MAPPINGS,
                audits,
                clock,
                logger,
                queue: intake && { intake, scanDelayMs: config.SERVER_SCAN_DELAY * 1000, scanDelays: config.SERVER_SCAN_DELAYS, chunk: Math.min(CHUNK, config.SERVER_MAX_REQUEST_PATHS) },
              },
              bar?.update,
            );
          } finally {
            bar?.stop();
          }
          process.stdout.write(client.scrub(reportText(report, { dryRun: opts.dryRun === true, listed: opts.all ? Infinity : LISTED })));
          if (report.error) failed.push(client.who);
          for (const t of report.targets) if (t.error) failed.push(`${t.target} (for ${client.who})`);
        }
        if (failed.length) {
          process.stderr.write(`Could not read ${failed.join(', ')}: see above.\n`);
          process.exitCode = 1;
        }
      } finally {
        new ReconcileAudits(queue.db).release(process.pid);
        queue.close();
      }
    });
}

/** A bar on a terminal's stderr (nothing when it is not one, so a log or a pipe gets only the report). */
function progressBar(who: string): { update: (step: string, done: number, total: number) => void; stop: () => void } | undefined {
  if (!process.stderr.isTTY) return undefined;
  const bar = new SingleBar({ format: `${who} {step} |{bar}| {value}/{total}`, stream: process.stderr, hideCursor: true }, Presets.shades_classic);
  bar.start(1, 0, { step: '' });
  return {
    update: (step, done, total) => {
      bar.setTotal(Math.max(total, done, 1));
      bar.update(done, { step });
    },
    stop: () => bar.stop(),
  };
}
