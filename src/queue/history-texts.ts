// How a history line's long texts are kept small on disk. A detail is stored once in history_texts and each line
// names it by id; the line's own folder inside a detail becomes a placeholder first, so the same outcome for
// different folders ("Unable to map '<folder>' to a Section ID. ...") is one text. The path as received is kept
// as the part that differs from the folder: '/tv/Show/Season 01' beside '/data/media/tv/Show/Season 01' is
// "15|/tv". Both are undone when history is read, giving back the texts exactly as they were written.

/** Stands for the line's folder inside a stored detail. */
const FOLDER = '\u0001F';
/** Starts a detail stored as it was (it held one of the two marks itself). */
const LITERAL = '\u0002';

/** The text stored for `detail` on a line about `folder`. */
export function detailTemplate(detail: string, folder: string): string {
  if (detail.includes('\u0001') || detail.includes(LITERAL)) return LITERAL + detail;
  return folder === '' ? detail : detail.replaceAll(folder, FOLDER);
}

/** The detail as written, from its stored text. */
export function detailOf(stored: string, folder: string): string {
  if (stored.startsWith(LITERAL)) return stored.slice(1);
  return stored.replaceAll(FOLDER, folder);
}

/**
 * The path as received, stored as "<cut>|<prefix>": the received path is `prefix` followed by the folder from
 * UTF-16 unit `cut` on. "|<path>" (no cut) keeps the path whole, as lines migrated from schema 6 do.
 */
export function receivedEdit(received: string, folder: string): string {
  let same = 0;
  const max = Math.min(received.length, folder.length);
  while (same < max && received.charCodeAt(received.length - 1 - same) === folder.charCodeAt(folder.length - 1 - same)) same++;
  // Never split a surrogate pair: the prefix and the kept tail must each be whole characters.
  if (same > 0 && same < folder.length && isLowSurrogate(folder.charCodeAt(folder.length - same))) same--;
  return `${folder.length - same}|${received.slice(0, received.length - same)}`;
}

export function receivedOf(edit: string, folder: string): string {
  const bar = edit.indexOf('|');
  if (bar <= 0) return edit.slice(bar + 1);
  return edit.slice(bar + 1) + folder.slice(Number(edit.slice(0, bar)));
}

const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
