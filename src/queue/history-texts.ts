// How a history line's long texts are kept small on disk. A detail is stored as a template in history_texts,
// once however many lines use it, and each line names it by id with its own arguments: the line's folder and
// every run of digits in the detail become placeholders, so "In the library after 0.8 s ... (item 200). Sent to
// section 2 TV." is one template for every folder, and the line keeps "0,8,200,2". The path as received (a file,
// usually) keeps only what is not a run of its folder (receivedEdit). Reading undoes both and gives back the
// texts exactly as they were written.
import { hash } from 'node:crypto';
import type Database from 'better-sqlite3';

/** Stand for the line's folder and for the next digit argument inside a stored template. */
const FOLDER = '\u0001F';
const DIGITS = '\u0001D';
/** Starts a detail stored as it was, without arguments (it held one of the two marks itself). */
const LITERAL = '\u0002';

export interface StoredDetail {
  /** The template, in history_texts. */
  text: string;
  /** The digit runs, in order, joined by commas; null when there are none. */
  args: string | null;
}

/** What is stored for `detail` on a line about `folder`. */
export function storeDetail(detail: string, folder: string): StoredDetail {
  if (detail.includes('\u0001') || detail.includes(LITERAL)) return { text: LITERAL + detail, args: null };
  const digits: string[] = [];
  // The folder first (its digits are in the line's folder already), then each run of digits elsewhere.
  const text = (folder === '' ? [detail] : detail.split(folder))
    .map((part) => part.replace(/[0-9]+/g, (d) => (digits.push(d), DIGITS)))
    .join(FOLDER);
  return { text, args: digits.length ? digits.join(',') : null };
}

/** The detail as written, from its stored template and arguments. */
export function detailOf(text: string, args: string | null, folder: string): string {
  if (text.startsWith(LITERAL)) return text.slice(1);
  const digits = args === null ? [] : args.split(',');
  let next = 0;
  return text
    .split(FOLDER)
    .map((part) => part.replaceAll(DIGITS, () => digits[next++] ?? ''))
    .join(folder);
}

/** The key history_texts is looked up by: 48 bits of the template's SHA-1 (equal texts are compared too). */
export function textKey(text: string): number {
  // node:crypto from Node when a line is first written, not at start (src/server/secret.ts says why).
  return Buffer.from(hash('sha1', text, 'hex').slice(0, 12), 'hex').readUIntBE(0, 6);
}

/** A run of the folder copied into the path as received: "\u0001<offset>.<length>." (base 36). */
const COPY = '\u0001';
/** Shorter runs are kept as they are: a copy takes 5 or 6 characters itself. */
const MIN_COPY = 8;

/**
 * The path as received, stored as what differs from the folder: literal text, and runs copied from the folder.
 * '/tv/Show (2010)/Season 01/Show (2010) - S01E01.mkv' beside '/data/media/tv/Show (2010)/Season 01' keeps
 * "/tv", a copy of "/Show (2010)/Season 01", "/", a copy of "Show (2010)" and " - S01E01.mkv".
 */
export function receivedEdit(received: string, folder: string): string {
  if (received.includes(COPY) || received.includes(LITERAL)) return LITERAL + received;
  // Where each 4-unit piece of the folder starts, to find the longest run of the folder at each place.
  const starts = new Map<string, number[]>();
  for (let j = 0; j + 4 <= folder.length; j++) {
    const piece = folder.slice(j, j + 4);
    const list = starts.get(piece);
    if (list) list.push(j);
    else starts.set(piece, [j]);
  }
  let out = '';
  let i = 0;
  while (i < received.length) {
    let at = -1;
    let len = 0;
    if (!isLowSurrogate(received.charCodeAt(i))) {
      for (const j of starts.get(received.slice(i, i + 4)) ?? []) {
        let n = 4;
        while (i + n < received.length && j + n < folder.length && received.charCodeAt(i + n) === folder.charCodeAt(j + n)) n++;
        if (n > len) [at, len] = [j, n];
      }
      // A copy never ends between the two halves of a character.
      if (len > 0 && isHighSurrogate(received.charCodeAt(i + len - 1))) len--;
    }
    if (len >= MIN_COPY) {
      out += `${COPY}${at.toString(36)}.${len.toString(36)}.`;
      i += len;
    } else out += received[i++];
  }
  return out;
}

export function receivedOf(edit: string, folder: string): string {
  if (edit.startsWith(LITERAL)) return edit.slice(1);
  let out = '';
  let i = 0;
  for (let c = edit.indexOf(COPY); c >= 0; c = edit.indexOf(COPY, i)) {
    out += edit.slice(i, c);
    const dot = edit.indexOf('.', c);
    const end = edit.indexOf('.', dot + 1);
    const at = parseInt(edit.slice(c + 1, dot), 36);
    out += folder.slice(at, at + parseInt(edit.slice(dot + 1, end), 36));
    i = end + 1;
  }
  return out + edit.slice(i);
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** The statements that find and add templates (prepared on the connection that writes history). */
export function textStatements(db: Database.Database) {
  return {
    byKey: db.prepare<[number], { id: number; text: string }>('SELECT id, text FROM history_texts WHERE key = ?'),
    add: db.prepare<[number, string]>('INSERT INTO history_texts (key, text) VALUES (?, ?)'),
  };
}

/** The id of a template in history_texts, added if it is new. */
export function textId(stmts: ReturnType<typeof textStatements>, text: string): number {
  const key = textKey(text);
  for (const row of stmts.byKey.all(key)) if (row.text === text) return row.id;
  return Number(stmts.add.run(key, text).lastInsertRowid);
}

/** A history line's detail and path as received, as its columns store them. */
export function storedColumns(stmts: ReturnType<typeof textStatements>, folder: string, detail: string | null, received: string | null) {
  const d = detail === null ? null : storeDetail(detail, folder);
  return {
    detail_id: d === null ? null : textId(stmts, d.text),
    detail_args: d === null ? null : d.args,
    received_edit: received === null ? null : receivedEdit(received, folder),
  };
}
