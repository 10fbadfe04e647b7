// An app's history since its cursor, read page by page (GET history, oldest first: each app's
// HistoryController.GetHistory sorts by date and pages with LIMIT and OFFSET), and where the cursor goes once a
// page has been handed on. Where the reading starts is found by asking single records (a few requests of one record
// each, searched back from the newest); then each page is handed on before the next is asked, and the cursor moves
// after each: memory and time go with a page, whatever the app answers and however long it was down.
import { ARR_HISTORY_PAGE_SIZE } from '../http/answer-caps.js';
import type { Clock } from '../clock.js';
import { ANSWER_TOO_LARGE, ApiRefusal } from '../http/api-call.js';
import { eventsRead, type ArrApp } from './apps.js';
import type { ArrClient } from './client.js';
import type { Cursor } from './cursors.js';
import { byDate, readRecord, type HistoryRecord } from './records.js';

/** Read again before the cursor: an event the app dated a little before one already read may be written after it. */
export const OVERLAP_MS = 60_000;

/** The rest of this turn of the event loop to webhooks and /health: a week's history is read in several steps. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The most ids the cursor remembers as handled within its overlap, the newest kept: 100,000 records an app dates
 * within one minute would make every page and every save of the cursor as long. One forgotten is read again and
 * scanned once more, never lost.
 */
export const MAX_SEEN = 5_000;

/** The most pages one catch-up reads: the rest is read at the next, from where the cursor then is. */
export const MAX_PAGES = 200;

/** One page of the reading, measured against the cursor as it stood when the page was asked. */
export interface HistoryRead {
  arr: ArrApp;
  cursor: Cursor;
  /** Records not read before, oldest first. */
  fresh: HistoryRecord[];
  /** Records the cursor's overlap had already handled (on this page, or on the pages before it). */
  old: HistoryRecord[];
  /** The date of the page's newest record of any type: the cursor goes at least there once the page is handed on. */
  reached: number;
  /** A page skipped unread (past its cap or its parse's weight), and why: the cursor moves past it. */
  poisoned: string[];
  /** When the history was asked for (the relay's clock): as far as a skipped page moves the cursor, never further. */
  askedAt: number;
}

/** The pages of one reading, each asked once the one before is handed on (`next` with the cursor saved since). */
export interface HistoryPages {
  /** Where the reading started: the cursor less the overlap. */
  readonly from: number;
  readonly askedAt: number;
  /** The next page, or undefined once the history is read (or MAX_PAGES were). */
  next(cursor: Cursor): Promise<HistoryRead | undefined>;
  /** Why pages were skipped unread, and the records set aside as not records as the app writes them. */
  readonly poisoned: string[];
  readonly unreadable: string[];
}

/** Finds where the history reaches `cursor.at - OVERLAP_MS` and returns its pages from there. */
export async function openHistory(client: ArrClient, arr: ArrApp, cursor: Cursor, clock: Clock, pageSize = ARR_HISTORY_PAGE_SIZE): Promise<HistoryPages> {
  const from = cursor.at - OVERLAP_MS;
  const askedAt = clock.now();
  const poisoned: string[] = [];
  const unreadable: string[] = [];
  const skip = (why: string, err: unknown): string => {
    // Silence or an error is read again next time; an answer that is itself the problem would be met again.
    if (!(err instanceof ApiRefusal) || err.status !== ANSWER_TOO_LARGE) throw err;
    poisoned.push(`${why}: ${err.message}`);
    return poisoned[poisoned.length - 1];
  };
  let start: { index: number; total: number } | string;
  try {
    start = await firstFrom(client, arr, from);
  } catch (err) {
    start = skip('the records asked to find where to start', err);
  }
  const index = typeof start === 'string' ? 0 : start.index;
  let total = typeof start === 'string' ? 0 : start.total;
  const wanted = new Set(eventsRead(arr));
  let page = Math.floor(index / pageSize) + 1;
  let pages = 0;
  let done = index >= total && typeof start !== 'string';
  let last: HistoryRead | undefined;
  return {
    from,
    askedAt,
    poisoned,
    unreadable,
    async next(now) {
      if (done || pages >= MAX_PAGES) return undefined;
      pages++;
      const asked = page++;
      const seen = new Set(now.seen);
      // What the pages before handed on and the cursor still remembers: the next reading's overlap holds them.
      const old = new Map((last ? [...last.old, ...last.fresh] : []).filter((r) => seen.has(r.id)).map((r) => [r.id, r]));
      let records: unknown[];
      try {
        if (typeof start === 'string') throw start;
        ({ records, totalRecords: total } = await client.historyPage(asked, pageSize));
      } catch (err) {
        const why = typeof err === 'string' ? err : skip(`page ${asked} of ${pageSize} records`, err);
        done = asked * pageSize >= total;
        return (last = { arr, cursor: now, fresh: [], old: [...old.values()], reached: -Infinity, poisoned: [why], askedAt });
      }
      done = records.length < pageSize || asked * pageSize >= total;
      const fresh: HistoryRecord[] = [];
      let reached = -Infinity;
      for (const raw of records) {
        const r = readRecord(raw, arr);
        if (r.ok) reached = Math.max(reached, r.record.date);
        if (!r.ok) unreadable.push(r.reason);
        else if (!wanted.has(r.record.eventType) || r.record.date < from) continue;
        else if (seen.has(r.record.id)) old.set(r.record.id, r.record);
        else fresh.push(r.record);
      }
      await nextTurn();
      return (last = { arr, cursor: now, fresh: fresh.sort(byDate), old: [...old.values()], reached, poisoned: [], askedAt });
    },
  };
}

/**
 * The index (oldest first) of the first record dated at or after `from`, and how many records the app holds:
 * searched back from the newest by single records, twice as far each step, then halved. A record whose date cannot
 * be read counts as recent, so the reading starts earlier rather than later.
 */
async function firstFrom(client: ArrClient, arr: ArrApp, from: number): Promise<{ index: number; total: number }> {
  let total = 0;
  const recent = async (index: number): Promise<boolean> => {
    const { records, totalRecords } = await client.historyPage(index + 1, 1);
    total = Math.max(0, Math.min(totalRecords, Number.MAX_SAFE_INTEGER));
    const r = records.length ? readRecord(records[0], arr) : undefined;
    return r === undefined ? true : !r.ok || r.record.date >= from;
  };
  if (await recent(0)) return { index: 0, total };
  let older = 0;
  let newer = total;
  for (let step = 1; newer - step > older; step *= 2) {
    if (!(await recent(newer - step))) {
      older = newer - step;
      break;
    }
    newer -= step;
  }
  while (newer - older > 1) {
    const mid = older + Math.floor((newer - older) / 2);
    if (await recent(mid)) newer = mid;
    else older = mid;
  }
  return { index: newer, total };
}

/**
 * The cursor at the first record not yet handed on (past a skipped page, to when the history was asked), with the
 * ids handled within the overlap. Never past now: a record an app dates 9999-12-31 would stop every later reading; it
 * stays among the ids handled instead.
 */
export function cursorAfter(read: HistoryRead, done: Set<HistoryRecord>, next: number, now: number): Cursor {
  const { fresh, old, cursor } = read;
  const end = Math.max(cursor.at, read.reached, fresh.length ? fresh[fresh.length - 1].date : -Infinity, read.poisoned.length ? read.askedAt : -Infinity);
  const at = Math.min(next < fresh.length ? fresh[next].date : end, now);
  const handled = [...old, ...fresh.filter((r, index) => index < next || done.has(r))].filter((r) => r.date >= at - OVERLAP_MS);
  const seen = (handled.length > MAX_SEEN ? handled.sort(byDate).slice(-MAX_SEEN) : handled).map((r) => r.id);
  return { at, seen };
}
