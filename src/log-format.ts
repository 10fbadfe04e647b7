// Console lines for a person ("2026-11-22 18:35:21 INFO  Listening on …  queuefile=queue.db"), made from the JSON
// lines the logger writes, and the choice between them and JSON (--log-format; a terminal gets the human form).

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

function show(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
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
    return line;
  }
  if (entry === null || typeof entry !== 'object') return line;
  const { level, time, msg, ...fields } = entry;
  const message = typeof msg === 'string' ? msg : '';
  // Fields the message already spells out would only repeat it.
  const extra = Object.entries(fields)
    .filter(([, v]) => v !== undefined && !spelledOut(v, message))
    .map(([k, v]) => `${k}=${show(v)}`);
  const label = String(level ?? 'info').toUpperCase().padEnd(5);
  return `${stamp(time)} ${label} ${message}${extra.length ? `  ${extra.join(' ')}` : ''}\n`;
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
