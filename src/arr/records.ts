// One history record as an arr app's API answers it (HistoryResource: camelCase, enums as camelCase strings, `data`
// a dictionary of strings whose keys are camelCased too), read without trusting its shape: what is not a record as
// the app writes it is set aside with the reason, never thrown.
import type { ArrApp } from './apps.js';

export interface HistoryRecord {
  /** The app's own id of the record: the catch-up's overlap is deduplicated by it. */
  id: number;
  /** When the app wrote it (ms since the epoch, from its UTC `date`). */
  date: number;
  eventType: string;
  sourceTitle?: string;
  downloadId?: string;
  /** What the file holds (episodeId, movieId, trackId, bookId). */
  item?: number;
  /** The series, movie, artist or author. */
  owner?: number;
  data: Record<string, string>;
}

export type ReadRecord = { ok: true; record: HistoryRecord } | { ok: false; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const positiveInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function readRecord(raw: unknown, arr: ArrApp): ReadRecord {
  if (!isObject(raw)) return { ok: false, reason: 'not a JSON object' };
  const id = positiveInt(raw.id);
  if (id === undefined) return { ok: false, reason: 'no id' };
  // The apps write UTC and say so ("2026-03-01T20:15:00Z"); a date without a zone is read as UTC too.
  const when = typeof raw.date === 'string' ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(raw.date) ? raw.date : `${raw.date}Z`) : NaN;
  if (!Number.isFinite(when)) return { ok: false, reason: `record ${id} has no date` };
  const eventType = text(raw.eventType);
  if (eventType === undefined) return { ok: false, reason: `record ${id} has no eventType` };
  const data: Record<string, string> = {};
  if (isObject(raw.data)) for (const [k, v] of Object.entries(raw.data)) if (typeof v === 'string') data[k] = v;
  const record: HistoryRecord = { id, date: when, eventType, data };
  const sourceTitle = text(raw.sourceTitle);
  if (sourceTitle !== undefined) record.sourceTitle = sourceTitle;
  const downloadId = text(raw.downloadId);
  if (downloadId !== undefined) record.downloadId = downloadId;
  const item = positiveInt(raw[arr.item]);
  if (item !== undefined) record.item = item;
  const owner = positiveInt(raw[arr.owner]);
  if (owner !== undefined) record.owner = owner;
  return { ok: true, record };
}

/** Oldest first, as the catch-up moves its cursor; the apps order one date's records as their tables hold them (BasicRepository.GetPagedRecords). */
export function byDate(a: HistoryRecord, b: HistoryRecord): number {
  return a.date - b.date || a.id - b.id;
}
