// History records → the scans their webhooks would have asked for. Pure: each record (or the records of one
// release) becomes the payload that app's webhook carries for the same event, read by the webhook's own parser
// (src/triggers/), so a caught-up import is exactly the ScanRequest its webhook would have made, only its source
// saying it came from the history. Which record means what is each app's HistoryService.cs (src/arr/apps.ts).
import type { HistorySource, ScanRequest, Source } from '../request.js';
import type { Payload } from '../triggers/payload.js';
import { ScanList } from '../triggers/scan-list.js';
import type { ArrApp } from './apps.js';
import type { HistoryRecord } from './records.js';

/** The scans one or more records stand for, as one webhook would have asked. */
export interface HistoryScan {
  /** The webhook's event name (Download, Upgrade, Rename, EpisodeFileDelete, Retag, …). */
  event: string;
  requests: ScanRequest[];
  records: HistoryRecord[];
  /** Where its first record is in the batch: scans are handed on in the order their events happened. */
  first: number;
}

export interface SkippedRecord {
  id: number;
  reason: string;
}

/** An upgrade's delete is written just before its import; one that far apart is not the same upgrade. */
const UPGRADE_PAIR_MS = 60 * 60_000;
/** The records of one import (each episode of a file, each track of a release) are written within this. */
const SAME_IMPORT_MS = 10 * 60_000;

/**
 * The scans of `records` (sorted by date). `app` is the webhook source the app's payloads are read as (whisparr for
 * Whisparr), `owners` the series or movie objects by id (their IDs, as a webhook carries them) where known.
 */
export function historyScans(
  arr: ArrApp,
  app: Source,
  records: readonly HistoryRecord[],
  owners: ReadonlyMap<number, Payload> = new Map(),
): { scans: HistoryScan[]; skipped: SkippedRecord[] } {
  const p = arr.payload;
  const source = `${app}-history` as HistorySource;
  const scans: HistoryScan[] = [];
  const skipped: SkippedRecord[] = [];
  const ownerOf = (r: HistoryRecord): Payload => {
    const known = r.owner === undefined ? undefined : owners.get(r.owner);
    return known ? { [p.owner]: known } : {};
  };
  const indexOf = new Map(records.map((r, i) => [r, i]));
  // A loop, not Math.min(...): a group can hold every record of an answer, more than a call's arguments may.
  const firstOf = (group: HistoryRecord[]) => group.reduce((first, r) => Math.min(first, indexOf.get(r) ?? 0), Infinity);
  const add = (group: HistoryRecord[], payload: Payload, event: string) => {
    const outcome = arr.parse(payload, event, app);
    if (outcome.kind !== 'scan') {
      const reason = outcome.kind === 'ignored' ? outcome.reason : `${event} is not an event the ${arr.name} webhook scans for`;
      for (const r of group) skipped.push({ id: r.id, reason: `${r.eventType} record: ${reason}` });
      return;
    }
    scans.push({ event: outcome.event, requests: outcome.requests.map((q) => ({ ...q, source })), records: group, first: firstOf(group) });
  };

  // An upgrade's old file: deleted with reason Upgrade, then the new one imported for the same episode, movie, track
  // or book. The Download webhook carries it as isUpgrade with deletedFiles; history has two records.
  // Every step below is linear in the records: one answer may hold 100,000 records of one file.
  const upgrades = new Map<number, { deletes: HistoryRecord[]; next: number }>();
  for (const r of records) {
    if (r.eventType !== arr.fileDeleted || r.data.reason !== 'Upgrade' || r.item === undefined || !r.sourceTitle) continue;
    const waiting = upgrades.get(r.item);
    if (waiting) waiting.deletes.push(r);
    else upgrades.set(r.item, { deletes: [r], next: 0 });
  }
  const paired = new Set<HistoryRecord>();
  // Imports come in date order and so do an item's deletes: what one import passed over, or took, no later one takes.
  const takeUpgrade = (r: HistoryRecord): HistoryRecord[] => {
    const waiting = r.item === undefined ? undefined : upgrades.get(r.item);
    if (!waiting) return [];
    const { deletes } = waiting;
    while (waiting.next < deletes.length && r.date - deletes[waiting.next].date > UPGRADE_PAIR_MS) waiting.next++;
    const found: HistoryRecord[] = [];
    while (waiting.next < deletes.length && deletes[waiting.next].date <= r.date + 60_000) found.push(deletes[waiting.next++]);
    for (const d of found) paired.add(d);
    return found;
  };

  // Imports: one Download per file (Sonarr, Radarr: a multi-episode file has a record per episode), or per
  // release (Lidarr, Readarr: an album's tracks share the download's id).
  type ImportGroup = { records: HistoryRecord[]; paths: Set<string>; replaced: HistoryRecord[] };
  const imports = new Map<string, ImportGroup>();
  const importGroups: ImportGroup[] = [];
  const renames = new Map<string, { records: HistoryRecord[] }>();
  const single = new Map<string, { records: HistoryRecord[]; event: 'delete' | 'retag' }>();
  /** Files the record among the groups above; what it cannot be is said. */
  const place = (r: HistoryRecord): string | undefined => {
    if (arr.imports.includes(r.eventType)) {
      const path = r.data.importedPath;
      if (!path) return `${r.eventType} record has no data.importedPath`;
      // The records of one import are written together; the same file imported again later is another Download.
      const key = 'one' in p.imported ? `file\0${path}\0${r.downloadId}` : `release\0${r.downloadId ?? r.owner}`;
      const open = imports.get(key);
      const group = open && r.date - open.records[open.records.length - 1].date <= SAME_IMPORT_MS ? open : { records: [], paths: new Set<string>(), replaced: [] };
      if (group !== open) {
        imports.set(key, group);
        importGroups.push(group);
      }
      group.records.push(r);
      group.paths.add(path);
      for (const d of takeUpgrade(r)) group.replaced.push(d);
    } else if (r.eventType === arr.renamed) {
      if (!r.data.path && !r.data.sourcePath) return `${r.eventType} record has no data.path or data.sourcePath`;
      const key = `${r.data.sourcePath}\0${r.data.path}`;
      const group = renames.get(key);
      if (group) group.records.push(r);
      else renames.set(key, { records: [r] });
    } else if (r.eventType === arr.fileDeleted || r.eventType === arr.retagged) {
      if (!r.sourceTitle) return `${r.eventType} record has no sourceTitle (the file's path)`;
      const event = r.eventType === arr.fileDeleted ? 'delete' : 'retag';
      const key = `${event}\0${r.sourceTitle}`;
      const group = single.get(key);
      if (group) group.records.push(r);
      else single.set(key, { records: [r], event });
    } else {
      return `${r.eventType} records name no file scanrelay scans for`;
    }
    return undefined;
  };
  for (const r of records) {
    const reason = place(r);
    if (reason !== undefined) skipped.push({ id: r.id, reason });
  }

  for (const g of importGroups) {
    const replaced = [...new Set(g.replaced)];
    const files = [...g.paths].map((path) => ({ path }));
    const payload: Payload = {
      ...ownerOf(g.records[0]),
      ...('one' in p.imported ? { [p.imported.one]: files[0] } : { [p.imported.many]: files }),
      ...(replaced.length ? { isUpgrade: true, deletedFiles: replaced.map((d) => ({ path: d.sourceTitle })) } : {}),
    };
    add(g.records.concat(replaced), payload, 'Download');
  }
  for (const g of renames.values()) {
    const { sourcePath, path } = g.records[0].data;
    add(g.records, { [p.renamed]: [{ previousPath: sourcePath, path }] }, 'Rename');
  }
  for (const g of single.values()) {
    const records = g.records.filter((r) => !paired.has(r));
    if (records.length === 0) continue;
    const file = { [p.file]: { path: records[0].sourceTitle } };
    if (g.event === 'retag') add(records, file, 'Retag');
    else if (p.deleteEvent) add(records, { ...ownerOf(records[0]), ...file }, p.deleteEvent);
    // Lidarr's webhook tells no deleted track file (WebhookEventType.cs); its history does: the folder is scanned.
    else scans.push({ event: 'TrackFileDelete', requests: new ScanList(source, 'TrackFileDelete').deletedFile(records[0].sourceTitle!).requests(), records, first: firstOf(records) });
  }
  scans.sort((a, b) => a.first - b.first);
  return { scans, skipped };
}
