// Console lines for a person ("2026-11-22 18:35:21 INFO  Listening on …  queuefile=queue.db"), made from the JSON
// lines the logger writes, and the choice between them and JSON (--log-format; a terminal gets the human form).
// Every field may hold text from outside (an eventType, a Plex section title, a server's error body): controls
// are shown as escapes in JSON's form, as the file's lines show newlines, so no field can start a line or move
// the cursor.

export type LogFormat = 'json' | 'human';

export class LogFormatError extends Error {}

export function parseLogFormat(value: string | undefined): LogFormat | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.toLowerCase();
  if (v === 'json' || v === 'human') return v;
  throw new LogFormatError(`unknown log format '${value}': use --log-format human or --log-format json`);
}

/** Human on a terminal; JSON lines for everything else (docker logs, journald, pipes) unless asked. */
export function consoleFormat(asked: LogFormat | undefined, stream: { isTTY?: boolean } = process.stdout): LogFormat {
  return asked ?? (stream.isTTY ? 'human' : 'json');
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Local time, as plex_autoscan's console showed it. */
function stamp(time: unknown): string {
  const d = typeof time === 'string' || typeof time === 'number' ? new Date(time) : new Date();
  const t = Number.isNaN(d.getTime()) ? new Date() : d;
  return `${t.getFullYear()}-${pad2(t.getMonth() + 1)}-${pad2(t.getDate())} ${pad2(t.getHours())}:${pad2(t.getMinutes())}:${pad2(t.getSeconds())}`;
}

/**
 * What a terminal acts on instead of showing, beyond C0 (which JSON itself escapes): DEL, C1 (NEL, CSI), the line
 * and paragraph separators, and the bidi embeddings, overrides and isolates (U+202A-202E, U+2066-2069) that reorder
 * what follows them on the line.
 */
const BEYOND_C0 = '\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
/** All of them, C0 (newline, carriage return, ESC starting a colour or a cursor move) included. */
const CONTROL = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}]`, 'g');
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A character as JSON's escape writes it: `\u001b`. */
const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with each control as JSON writes one (`\n`, `\u001b`), the rest as it is. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => NAMED[c] ?? unicodeEscape(c));
}

/** What JSON leaves raw (it escapes C0 only) and a terminal or pager acts on. */
const RAW_IN_JSON = new RegExp(`[${BEYOND_C0}]`);
const RAW_IN_JSON_ALL = new RegExp(RAW_IN_JSON.source, 'g');

/**
 * A JSON line with the controls JSON itself leaves raw written as escapes, so `cat` or `less` of the log file
 * shows them rather than acting on them (a right-to-left override in a file name would otherwise reorder the rest
 * of its line). Lossless: `JSON.parse` gives the same value back. They only ever occur inside JSON strings.
 */
export function escapeRawInJson(line: string): string {
  return RAW_IN_JSON.test(line) ? line.replace(RAW_IN_JSON_ALL, unicodeEscape) : line;
}

/** A field's value: bare when it is one plain word, else quoted as JSON; controls escaped either way. */
function show(value: unknown): string {
  if (typeof value === 'string' && /^[^\s"=]+$/.test(value) && !value.match(CONTROL)) return value;
  return escapeControls(JSON.stringify(value) ?? String(value));
}

function spelledOut(value: unknown, message: string): boolean {
  if (typeof value === 'string') return message.includes(value);
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && message.includes(v));
}

/** One JSON log line as a human line; a line that is not JSON passes unchanged. */
export function humanLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return escapeControls(line);
  }
  if (entry === null || typeof entry !== 'object') return escapeControls(line);
  const { level, time, msg, ...fields } = entry;
  const message = typeof msg === 'string' ? msg : '';
  // Fields the message already spells out would only repeat it.
  const extra = Object.entries(fields)
    .filter(([, v]) => v !== undefined && !spelledOut(v, message))
    .map(([k, v]) => `${escapeControls(k)}=${show(v)}`);
  const label = escapeControls(String(level ?? 'info').toUpperCase()).padEnd(5);
  return `${stamp(time)} ${label} ${escapeControls(message)}${extra.length ? `  ${extra.join(' ')}` : ''}\n`;
}

/**
 * A console destination that receives each JSON line as a human line. Only write is wrapped; flushing and ending
 * are the destination's own (bound), so a buffered console still flushes at exit.
 */
export function humanStream(dest: { write: (chunk: string) => unknown; flushSync?: () => void; flush?: () => void; end?: () => void }) {
  return {
    write: (chunk: string) =>
      dest.write(
        String(chunk)
          .split('\n')
          .filter((l) => l !== '')
          .map(humanLine)
          .join(''),
      ),
    flushSync: dest.flushSync?.bind(dest),
    flush: dest.flush?.bind(dest),
    end: dest.end?.bind(dest),
  };
}
