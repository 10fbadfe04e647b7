// Before a folder is sent anywhere: the anchor files must exist, and the file it names must have appeared on the
// disk this service sees (SERVER_FILE_EXIST_PATH_MAPPINGS), checked SERVER_MAX_FILE_CHECKS times.
import type { Activity } from '../activity.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { mapPath } from '../paths/mapping.js';
import type { Queue } from '../queue/store.js';
import type { Folder } from '../scan.js';
import type { PathState } from '../paths/disk.js';
import type { ProcessorSettings } from './settings.js';
import { typed } from '../version.js';

const CHECK_BATCH = 256;
/** Folders remembered with the disk's spelling; beyond it the oldest fall back to the request's spelling. */
const SPELLINGS_KEPT = 10_000;

/** NFD when a path is written decomposed (as macOS names files), else NFC: the form to send a folder in. */
export function spellingOf(path: string | undefined): 'NFC' | 'NFD' {
  return path !== undefined && path !== path.normalize('NFC') ? 'NFD' : 'NFC';
}

export interface FileCheckDeps {
  queue: Queue;
  settings: ProcessorSettings;
  logger: Logger;
  clock: Clock;
  pathState: (path: string) => Promise<PathState>;
  activity?: Activity;
  /** RCLONE.RC_CACHE_REFRESH: told of each missing file before its next check (src/rclone/remote-control.ts). */
  refreshCache?: (localPath: string) => Promise<void>;
  /** The folders that passed in one round: their deliveries begin (one transaction for all of them). */
  begin: (rows: Folder[]) => void;
}

export class FileChecks {
  private anchorProblem?: string;
  private readonly checking = new Set<number>();
  /**
   * The spelling the disk holds each checked folder's file in, whichever it is: row id → that form. The row is
   * keyed in NFC and its requests may have come in either spelling; what the disk says wins over the last of them.
   */
  private readonly onDisk = new Map<number, 'NFC' | 'NFD'>();
  /** Rows that are all deletes whose deleted paths are still on disk (an app that removed an item but kept its files). */
  private readonly keptOnDisk = new Set<number>();

  constructor(private readonly deps: FileCheckDeps) {}

  /**
   * The folder as the media server should be asked for it: in the spelling found on the disk, else in the one
   * it was requested in (queue rows hold NFC, so both spellings of a name are one row).
   */
  spelling(row: Folder): string {
    const form = this.onDisk.get(row.id) ?? spellingOf(row.received);
    return form === 'NFD' ? row.folder.normalize('NFD') : row.folder;
  }

  /**
   * Every path the row deletes is still on disk: no delete. A SeriesDelete or MovieDelete that kept the files (or
   * the catch-up's item-list delete, which cannot tell) must not reach a server as gone: Jellyfin's Targeted Scans
   * plugin answers a folder that is there with ReplaceAllMetadata of everything below it.
   */
  kept(row: Folder): boolean {
    return this.keptOnDisk.has(row.id);
  }

  /** Why scans are held, when an anchor file is missing. */
  get held(): string | undefined {
    return this.anchorProblem;
  }

  /** All anchors present (scans may go on); says once when one goes missing and once when all are back. */
  async anchorsPresent(): Promise<boolean> {
    const { anchors } = this.deps.settings;
    if (!anchors.length) return true;
    for (const anchor of anchors) {
      if ((await this.deps.pathState(anchor)) === 'missing') {
        if (this.anchorProblem === undefined) {
          this.deps.logger.warn({ anchor }, `anchor file '${anchor}' is missing: scans wait until it is back (is the mount up?)`);
        }
        this.anchorProblem = `anchor file '${anchor}' is missing`;
        return false;
      }
    }
    if (this.anchorProblem !== undefined) this.deps.logger.info('anchor files are back: scans resume');
    this.anchorProblem = undefined;
    return true;
  }

  /**
   * Checks up to `room` folders whose delay has passed, first by priority; those that pass begin together.
   * `room` is how many the targets can take soon: a backlog of 100,000 is checked at the pace it is delivered,
   * not all at once ahead of it.
   */
  async run(room = CHECK_BATCH): Promise<void> {
    if (room <= 0) return;
    const rows = this.deps.queue.dueWaiting(Math.min(room, CHECK_BATCH)).filter((r) => !this.checking.has(r.id));
    for (const r of rows) this.checking.add(r.id);
    try {
      const passed = await Promise.all(rows.map((row) => this.check(row)));
      const begun = rows.filter((_, i) => passed[i]);
      if (begun.length) this.deps.begin(begun);
    } finally {
      for (const r of rows) this.checking.delete(r.id);
    }
  }

  /** What the disk says of `local`, in its NFC spelling or, failing that, its NFD one; the one found is remembered. */
  private async present(row: Folder, local: string): Promise<PathState> {
    const state = await this.deps.pathState(local);
    const decomposed = local.normalize('NFD');
    if (decomposed === local) return state; // one spelling only: nothing to remember
    if (state !== 'missing') {
      this.remember(row, 'NFC');
      return state;
    }
    const other = await this.deps.pathState(decomposed);
    if (other !== 'missing') this.remember(row, 'NFD');
    return other;
  }

  private remember(row: Folder, form: 'NFC' | 'NFD'): void {
    this.onDisk.delete(row.id);
    if (this.onDisk.size >= SPELLINGS_KEPT) this.onDisk.delete(this.onDisk.keys().next().value as number);
    this.onDisk.set(row.id, form);
  }

  /** A row that is all deletes: are the paths it deletes (its files, or the folder itself) still there? */
  private async checkDeletes(row: Folder): Promise<void> {
    const { settings, logger } = this.deps;
    const deleted = row.files?.gone.length && !row.files.more ? row.files.gone : [row.folder];
    for (const path of deleted) {
      if ((await this.deps.pathState(mapPath(path, settings.fileExistMappings).path)) === 'missing') return;
    }
    if (this.keptOnDisk.size >= SPELLINGS_KEPT) this.keptOnDisk.delete(this.keptOnDisk.values().next().value as number);
    this.keptOnDisk.add(row.id);
    logger.info({ folder: row.folder, event: row.event }, `'${deleted[0]}'${deleted.length > 1 ? ` and ${deleted.length - 1} more` : ''} is still on disk after ${row.event}: scanned as a change, not as a delete (the server's own refresh finds whatever did go).`);
  }

  /** The existence check of plex_autoscan: wait for the file to appear before scanning its folder. True: scan it. */
  private async check(row: Folder): Promise<boolean> {
    const { queue, settings, logger, clock } = this.deps;
    // Only this check's finding counts: a row id SQLite gave again, or a file renamed since, says nothing now.
    this.onDisk.delete(row.id);
    this.keptOnDisk.delete(row.id);
    try {
      if (row.allDeleted) {
        await this.checkDeletes(row);
        return true;
      }
      if (settings.maxFileChecks <= 0) return true;
      const subject = row.fileHint ?? row.folder;
      const { path: local, match: existMatch } = mapPath(subject, settings.fileExistMappings);
      const checks = row.checks + 1;
      if ((await this.present(row, local)) !== 'missing') {
        logger.debug({ path: local, check: checks }, `File '${local}' exists on check ${checks} of ${settings.maxFileChecks}.`);
        return true;
      }
      // A merged request said something in this folder is gone: the folder must be scanned regardless.
      if (row.anyDeleted) return true;
      await this.deps.refreshCache?.(local);
      if (checks < settings.maxFileChecks) {
        const msg = `File '${local}' did not exist on check ${checks} of ${settings.maxFileChecks}${checks === 1 ? ` ${whereLooked(existMatch)}` : ''}. Checking again in ${Math.round(settings.fileCheckDelayMs / 1000)} seconds...`;
        logger.info({ path: local, folder: row.folder }, msg);
        queue.deferCheck(row, checks, clock.now() + settings.fileCheckDelayMs, msg);
        return false;
      }
      if (settings.folderOnExhaustion && row.fileHint) {
        const folderLocal = mapPath(row.folder, settings.fileExistMappings).path;
        if ((await this.deps.pathState(folderLocal)) === 'folder') {
          logger.warn(
            { path: local, folder: row.folder },
            `File '${local}' exhausted all available checks; scanning its folder '${row.folder}' instead (SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION).`,
          );
          return true;
        }
      }
      // One sentence for people, then the technical part (the dashboard shows it behind "details").
      const detail =
        `The file never appeared where scanrelay looks for it, so nothing was scanned.\n` +
        `File '${local}' exhausted all available checks (${settings.maxFileChecks}). If the file is there, check SERVER_FILE_EXIST_PATH_MAPPINGS (try: ${typed(`explain '${row.received ?? row.fileHint ?? row.folder}'`)}).`;
      logger.warn({ path: local, folder: row.folder }, detail.replace('\n', ' '));
      queue.finish(row, 'exhausted', detail);
      this.deps.activity?.emit('finished', { folder: row.folder, outcome: 'exhausted', detail });
      return false;
    } catch (err) {
      logger.error({ folder: row.folder, err: String(err) }, `existence check of '${row.folder}' failed; will retry`);
      return false;
    }
  }
}

/**
 * Where the first failed check looked, naming the key that moves it: a new user whose media scanrelay sees at
 * another path learns which key to set on the first line, not after SERVER_MAX_FILE_CHECKS checks.
 */
function whereLooked(match: { from: string; to: string } | undefined): string {
  return match
    ? `(looked for it through SERVER_FILE_EXIST_PATH_MAPPINGS '${match.from}' -> '${match.to}')`
    : `(looked for it where the media server sees it: no SERVER_FILE_EXIST_PATH_MAPPINGS entry matched; if scanrelay sees your media at another path, map it there: "SERVER_FILE_EXIST_PATH_MAPPINGS": { "<path here>/": ["<media server's path>/"] })`;
}
