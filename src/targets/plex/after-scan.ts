// What follows a Plex scan once it has ended: empty the trash of its sections and analyze its items, once per batch.
import { ACKNOWLEDGEMENT, PLEX_CHILDREN } from '../../http/answer-caps.js';
import type { Clock } from '../../clock.js';
import { access } from '../../file-system.js';
import type { Logger } from '../../log/logger.js';
import type { ExternalIds } from '../../scan.js';
import type { PlexApi } from './api.js';
import type { MatchFixer } from './match.js';

export interface AfterScanSettings {
  emptyTrash: boolean;
  /** 0 = never empty, as in plex_autoscan. */
  emptyTrashMaxFiles: number;
  /** All must exist, or the trash is left alone: a missing mount makes every item look deleted. */
  emptyTrashControlFiles: string[];
  emptyTrashZeroDeleted: boolean;
  analyze: 'off' | 'basic' | 'deep';
  analyzeDirectory: boolean;
  /** The TARGETS entry these settings belong to, so log lines name the keys the user can change; unset = PLEX_*. */
  entry?: string;
}

export const NO_AFTER_SCAN: AfterScanSettings = {
  emptyTrash: false,
  emptyTrashMaxFiles: 0,
  emptyTrashControlFiles: [],
  emptyTrashZeroDeleted: false,
  analyze: 'off',
  analyzeDirectory: false,
};

/** Items marked deleted in one section (Plex's database); 'unknown' when it can't be read. */
export type DeletedCounter = (sectionId: string) => Promise<number | 'unknown'>;

/** plex_autoscan's emptyTrash retry: 5 tries, 10 s apart. */
export const EMPTY_TRASH_TRIES = 5;
export const EMPTY_TRASH_RETRY_MS = 10_000;

/** The config key a setting comes from, as the user would look for it. */
export function keyName(s: AfterScanSettings, key: string): string {
  return s.entry ? `${key} of TARGETS "${s.entry}" (default: PLEX_${key})` : `PLEX_${key}`;
}

export function trashWanted(s: AfterScanSettings): boolean {
  return s.emptyTrash && s.emptyTrashMaxFiles > 0;
}

export async function fileExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

export interface TrashContext {
  api: PlexApi;
  sectionId: string;
  sectionTitle: string;
  event: string;
  settings: AfterScanSettings;
  deletedCount?: DeletedCounter;
  exists?: (path: string) => Promise<boolean>;
  /** The pause between tries: the target's clock, so tests pass the 10 s without waiting. */
  clock: Clock;
  logger: Logger;
}

/** plex_autoscan's empty-trash guards, counted per section. Returns true when the trash was emptied. */
export async function emptyTrashIfSafe(c: TrashContext): Promise<boolean> {
  const { settings, logger } = c;
  const where = `section ${c.sectionId} ${c.sectionTitle}`;
  if (!trashWanted(settings)) return false;
  const exists = c.exists ?? fileExists;
  for (const control of settings.emptyTrashControlFiles) {
    if (!(await exists(control))) {
      logger.warn({ section: c.sectionId, control }, `Skip emptying of trash as control file is not present: '${control}' (${where}).`);
      return false;
    }
  }
  if (!c.deletedCount) {
    const database = settings.entry ? `this Plex's database (DATABASE_PATH of TARGETS "${settings.entry}")` : "Plex's database (PLEX_DATABASE_PATH)";
    logger.warn(
      { section: c.sectionId },
      `Skip emptying of trash in ${where}: ${settings.entry ? 'EMPTY_TRASH' : 'PLEX_EMPTY_TRASH'} needs the number of deleted items from ${database}, which is not readable here.`,
    );
    return false;
  }
  const deleted = await c.deletedCount(c.sectionId).catch(() => 'unknown' as const);
  if (deleted === 'unknown') {
    logger.error({ section: c.sectionId }, `Skip emptying of trash in ${where}: could not count its deleted items in Plex's database.`);
    return false;
  }
  if (deleted > settings.emptyTrashMaxFiles) {
    logger.warn(
      { section: c.sectionId, deleted },
      `Skip emptying of trash in ${where}: ${deleted} items are marked deleted, more than ${keyName(settings, 'EMPTY_TRASH_MAX_FILES')} (${settings.emptyTrashMaxFiles}). Is a mount missing?`,
    );
    return false;
  }
  // An upgrade replaces a file, leaving the old part in the trash even when nothing counts as deleted yet.
  if (deleted === 0 && !settings.emptyTrashZeroDeleted && c.event.toLowerCase() !== 'upgrade') {
    logger.debug({ section: c.sectionId }, `Not emptying trash in ${where}: nothing is marked deleted.`);
    return false;
  }
  // Retried as plex_autoscan did, so a Plex that is briefly busy or restarting does not leave the trash full.
  let lastError = '';
  for (let attempt = 1; attempt <= EMPTY_TRASH_TRIES; attempt++) {
    try {
      const res = await c.api.request('PUT', `/library/sections/${encodeURIComponent(c.sectionId)}/emptyTrash`, ACKNOWLEDGEMENT);
      await res.body?.cancel();
      logger.info({ section: c.sectionId, deleted, attempt }, `Emptied trash in ${where} (${deleted} deleted item(s)).`);
      return true;
    } catch (err) {
      lastError = (err as Error).message;
      const next = attempt < EMPTY_TRASH_TRIES ? `; trying again in ${EMPTY_TRASH_RETRY_MS / 1000} s` : '';
      logger.warn({ section: c.sectionId, attempt }, `Emptying trash in ${where} failed (try ${attempt} of ${EMPTY_TRASH_TRIES}): ${lastError}${next}.`);
      if (next) await c.clock.sleep(EMPTY_TRASH_RETRY_MS);
    }
  }
  logger.error(
    { section: c.sectionId, deleted },
    `Gave up emptying trash in ${where} after ${EMPTY_TRASH_TRIES} tries (last: ${lastError}). Check that Plex at ${c.api.url} is up, ` +
      `that section ${c.sectionId} still exists, and that the token is the server owner's (emptyTrash needs an admin token); ` +
      `the deleted items stay in Plex's trash until a later scan empties it.`,
  );
  return false;
}

export interface AnalyzeContext {
  api: PlexApi;
  file: string;
  ratingKey?: string;
  parentRatingKey?: string;
  settings: AfterScanSettings;
  logger: Logger;
  /** Say once (per target) what "deep" can and cannot mean through the API; the caller keeps track. */
  explainDeep?: boolean;
}

/**
 * Per-item analyze through the API; returns the items Plex accepted. A whole-section analyze would re-read every
 * file of the library, so without the item's ratingKey we skip. Plex's API has one analyze call per item and no
 * deep variant (plex_autoscan's deep mode was the scanner's --analyze-deeply), so "deep" differs from "basic" only
 * in which items are asked for: with PLEX_ANALYZE_DIRECTORY, every child of the parent rather than the parent.
 * A failed call is logged and never fails the scan: the file is in the library either way.
 */
export async function analyzeItem(c: AnalyzeContext): Promise<string[]> {
  const { settings, logger } = c;
  if (settings.analyze === 'off') return [];
  if (settings.analyze === 'deep' && c.explainDeep) {
    logger.info(
      `${keyName(settings, 'ANALYZE_TYPE')} is "deep", but Plex's HTTP API has no deep-analysis call: each item gets Plex's analyze, ` +
        `and Plex's scheduled deep media analysis (Settings > Scheduled Tasks) completes the rest.`,
    );
  }
  const { items, scope } = await itemsToAnalyze(c);
  if (items.length === 0) {
    logger.info({ file: c.file }, `Skip analyze of '${c.file}': Plex did not tell us its item (ratingKey); a section analyze would be too heavy.`);
    return [];
  }
  const analyzed: string[] = [];
  for (const key of items) {
    try {
      const res = await c.api.request('PUT', `/library/metadata/${encodeURIComponent(key)}/analyze`, ACKNOWLEDGEMENT);
      await res.body?.cancel();
      analyzed.push(key);
    } catch (err) {
      logger.error({ file: c.file, ratingKey: key }, `Analyze of item ${key} (for '${c.file}') failed: ${(err as Error).message}`);
    }
  }
  if (analyzed.length > 0) {
    const failed = analyzed.length < items.length ? `; ${items.length - analyzed.length} of ${items.length} failed` : '';
    logger.info(
      { file: c.file, ratingKeys: analyzed },
      `Started ${settings.analyze} analysis for '${c.file}': item(s) ${analyzed.join(', ')} (${scope}${failed}).`,
    );
  }
  return analyzed;
}

/** Which items to analyze: the item, its parent, or every child of its parent (ratingKeys, as plex_autoscan's ids). */
async function itemsToAnalyze(c: AnalyzeContext): Promise<{ items: string[]; scope: string }> {
  const self = { items: c.ratingKey ? [c.ratingKey] : [], scope: 'the item itself' };
  // A movie has no parent: the directory setting then means the movie itself.
  if (!c.settings.analyzeDirectory || !c.parentRatingKey) return self;
  const directory = keyName(c.settings, 'ANALYZE_DIRECTORY');
  if (c.settings.analyze === 'basic') return { items: [c.parentRatingKey], scope: `its parent, ${directory}` };
  try {
    const children = await childrenOf(c.api, c.parentRatingKey);
    if (children.length > 0) return { items: children, scope: `every child of its parent ${c.parentRatingKey}, ${directory}` };
    c.logger.warn({ file: c.file }, `Plex listed no children of item ${c.parentRatingKey} (the parent of '${c.file}'); analyzing the item alone.`);
  } catch (err) {
    c.logger.warn({ file: c.file }, `Could not list the items beside '${c.file}' (children of ${c.parentRatingKey}): ${(err as Error).message}; analyzing the item alone.`);
  }
  return self;
}

async function childrenOf(api: PlexApi, ratingKey: string): Promise<string[]> {
  const res = await api.request('GET', `/library/metadata/${encodeURIComponent(ratingKey)}/children`, PLEX_CHILDREN);
  const body = (await res.json().catch(() => undefined)) as { MediaContainer?: { Metadata?: unknown } } | undefined;
  const items = body?.MediaContainer?.Metadata;
  if (!Array.isArray(items)) return [];
  return items.map((i) => (i as { ratingKey?: unknown }).ratingKey).filter((k) => k !== undefined && k !== null && k !== '').map(String);
}

export interface BatchItem {
  sections: { id: string; title: string }[];
  event: string;
  file?: string;
  ratingKey?: string;
  parentRatingKey?: string;
  ids?: ExternalIds;
}

export interface BatchContext {
  api: PlexApi;
  settings: AfterScanSettings;
  /** Analyze rides on the confirmation (PLEX_CONFIRM_SCANS). */
  analyze: boolean;
  items: BatchItem[];
  deletedCount?: DeletedCounter;
  exists?: (path: string) => Promise<boolean>;
  clock: Clock;
  logger: Logger;
  /** What was already said once per target (the note on "deep"); the follower keeps it. */
  said: { deep: boolean };
  /** PLEX_FIX_MISMATCHED: runs for each confirmed item whose request carried IDs. */
  fixer?: MatchFixer;
  /** The analyses of the whole batch by item (or parent), when it is finished in parts: each is still started once. */
  analyses?: Map<string, Promise<string[]>>;
}

/**
 * After a section went idle: its trash is emptied once for the whole batch (an upgrade anywhere in it counts),
 * and each item (or parent, with ANALYZE_DIRECTORY) is analyzed once however many files of the batch it holds.
 * Returns a note per item, for its history line.
 */
export async function afterBatch(c: BatchContext): Promise<string[][]> {
  const notes: string[][] = c.items.map(() => []);
  const sections = new Map<string, { title: string; events: Set<string>; items: number[] }>();
  c.items.forEach((item, i) => {
    for (const s of item.sections) {
      const entry = sections.get(s.id) ?? { title: s.title, events: new Set<string>(), items: [] };
      entry.events.add(item.event.toLowerCase());
      entry.items.push(i);
      sections.set(s.id, entry);
    }
  });
  if (trashWanted(c.settings)) {
    for (const [id, s] of sections) {
      const emptied = await emptyTrashIfSafe({
        api: c.api,
        sectionId: id,
        sectionTitle: s.title,
        event: s.events.has('upgrade') ? 'Upgrade' : [...s.events][0],
        settings: c.settings,
        deletedCount: c.deletedCount,
        exists: c.exists,
        clock: c.clock,
        logger: c.logger,
      });
      if (emptied) for (const i of s.items) notes[i].push(`Trash emptied in section ${id}.`);
    }
  }
  if (c.analyze && c.settings.analyze !== 'off') {
    const done = c.analyses ?? new Map<string, Promise<string[]>>();
    for (const [i, item] of c.items.entries()) {
      if (!item.file) continue;
      const scope = c.settings.analyzeDirectory && item.parentRatingKey ? `p${item.parentRatingKey}` : `i${item.ratingKey ?? item.file}`;
      if (!done.has(scope)) {
        const explainDeep = c.settings.analyze === 'deep' && !c.said.deep;
        if (explainDeep) c.said.deep = true;
        done.set(scope, analyzeItem({ api: c.api, file: item.file, ratingKey: item.ratingKey, parentRatingKey: item.parentRatingKey, settings: c.settings, logger: c.logger, explainDeep }));
      }
      const analyzed = await done.get(scope)!;
      if (analyzed.length) notes[i].push(`${c.settings.analyze === 'deep' ? 'Deep' : 'Basic'} analyze started (${analyzed.length === 1 ? `item ${analyzed[0]}` : `${analyzed.length} items`}).`);
    }
  }
  if (c.fixer) {
    for (const [i, item] of c.items.entries()) {
      if (!item.file || !item.ratingKey || !item.ids) continue;
      const outcome = await c.fixer.check({ file: item.file, ratingKey: item.ratingKey, sectionId: item.sections[0]?.id, ids: item.ids });
      if (outcome.kind === 'validated') notes[i].push('Match validated.');
      else if (outcome.kind === 'fixed') notes[i].push(`Match fixed (${outcome.guid}${outcome.split ? ', after a split' : ''}).`);
      else if (outcome.kind === 'dry-run') notes[i].push(`Match would be fixed${outcome.guid ? ` (${outcome.guid})` : ''} (PLEX_FIX_MISMATCHED_DRY_RUN).`);
    }
  }
  return notes;
}
