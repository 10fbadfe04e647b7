// One reading of an app's history since its cursor (a minute of overlap, one event type at a time, the event loop
// given back as records are read), and where the cursor goes once part of it has been handed on.
import type { Clock } from '../clock.js';
import { ANSWER_TOO_LARGE, ApiRefusal } from '../http/api-call.js';
import { eventsRead, type ArrFlavour } from './apps.js';
import type { ArrClient } from './client.js';
import type { Cursor } from './cursors.js';
import { byDate, readRecord, type HistoryRecord } from './records.js';

/** Read again before the cursor: an event the app dated a little before one already read may be written after it. */
export const OVERLAP_MS = 60_000;

/** The rest of this turn of the event loop to webhooks and /health: a week's history is read in several steps. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Records read between two turns given back: an answer of 100,000 records holds the event loop in short steps. */
const RECORDS_A_TURN = 5_000;

export interface HistoryRead {
  flavour: ArrFlavour;
  cursor: Cursor;
  /** Records not read before, oldest first. */
  fresh: HistoryRecord[];
  /** Records the cursor's overlap had already handled. */
  old: HistoryRecord[];
  unreadable: string[];
  /** Answers skipped unread (past their cap or their parse's weight), each with why: the cursor moves past them. */
  poisoned: string[];
  /** When the history was asked for (the relay's clock): as far as a skipped answer moves the cursor, never further. */
  askedAt: number;
}

export async function readHistory(client: ArrClient, flavour: ArrFlavour, cursor: Cursor, clock: Clock): Promise<HistoryRead> {
  const seen = new Set(cursor.seen);
  const byId = new Map<number, HistoryRecord>();
  const unreadable: string[] = [];
  const poisoned: string[] = [];
  const askedAt = clock.now();
  for (const eventType of eventsRead(flavour)) {
    let answer: unknown[];
    try {
      answer = await client.historySince(cursor.at - OVERLAP_MS, eventType);
    } catch (err) {
      // Silence or an error is read again next time; an answer that is itself the problem would be met again.
      if (!(err instanceof ApiRefusal) || err.status !== ANSWER_TOO_LARGE) throw err;
      poisoned.push(`the ${eventType} records: ${err.message}`);
      continue;
    }
    for (let i = 0; i < answer.length; i++) {
      const r = readRecord(answer[i], flavour);
      if (r.ok) byId.set(r.record.id, r.record);
      else unreadable.push(r.reason);
      if (i % RECORDS_A_TURN === RECORDS_A_TURN - 1) await nextTurn();
    }
    await nextTurn();
  }
  const all = [...byId.values()].sort(byDate);
  return { flavour, cursor, fresh: all.filter((r) => !seen.has(r.id)), old: all.filter((r) => seen.has(r.id)), unreadable, poisoned, askedAt };
}

/**
 * The cursor at the first record not yet handed on (past a skipped answer, to when it was asked), with the ids
 * handled within the overlap. Never past now: a record an app dates 9999-12-31 would stop every later reading; it
 * stays among the ids handled instead.
 */
export function cursorAfter(read: HistoryRead, done: Set<HistoryRecord>, next: number, now: number): Cursor {
  const { fresh, old, cursor } = read;
  const end = Math.max(cursor.at, fresh.length ? fresh[fresh.length - 1].date : -Infinity, read.poisoned.length ? read.askedAt : -Infinity);
  const at = Math.min(next < fresh.length ? fresh[next].date : end, now);
  const handled = [...old, ...fresh.filter((r, index) => index < next || done.has(r))];
  const seen = handled.filter((r) => r.date >= at - OVERLAP_MS).map((r) => r.id);
  return { at, seen };
}
