// The queue file's check before the server opens it (and `scanrelay check` by hand): is it a readable, whole
// SQLite database holding a scanrelay queue? The check never writes: no migration, no WAL or SHM files created
// beside a file that may be damaged, nothing truncated. A person decides what happens to a bad file.
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import Database from '../sqlite/binding.js';
import { typed } from '../version.js';

/** sysexits.h EX_CONFIG: the systemd unit does not restart on it (RestartPreventExitStatus), a person must act. */
export const EX_CONFIG = 78;

export type QueueFileCheck =
  | { state: 'missing'; file: string }
  | { state: 'ok'; file: string; bytes: number; queued: number; history: number }
  | { state: 'refused'; file: string; line: string };

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/**
 * A file this large is checked in place (read-only) rather than copied into memory first. In place, SQLite
 * creates empty -wal and -shm files beside a WAL-mode file; below this size nothing is created at all. Small,
 * because the copy costs twice the file's size at every start (the buffer and SQLite's own), which shows in the
 * peak memory of a server with a large queue (benchmark 4).
 */
const IN_MEMORY_LIMIT = 8 * 1024 * 1024;
/** SQLite's own detail after "damaged" is kept to this length: the first problem is enough to go on. */
const DETAIL_CHARS = 160;

const refusal = (file: string, what: string, todo = moveAside(file)) => `The queue file '${file}' ${what}; it was left as it is. ${todo}`;

/** The line for damage found later than the check, when the queue is read (SQLite's message as detail). */
export const damagedLine = (file: string, sqliteMessage: string) => refusal(file, `is damaged (SQLite: ${short(sqliteMessage)})`);

export function checkQueueFile(file: string): QueueFileCheck {
  const refused = (what: string, todo?: string): QueueFileCheck => ({ state: 'refused', file, line: refusal(file, what, todo) });
  let size: number;
  try {
    const st = statSync(file);
    if (st.isDirectory()) return refused('is a directory, not a file', `Point --queuefile (SCANRELAY_QUEUEFILE) at a file, or move the directory aside (mv '${file}' '${file}.aside') so an empty queue is created there.`);
    if (!st.isFile()) return refused('is not a regular file');
    size = st.size;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'missing', file };
    return refused(`cannot be opened (${code ?? (err as Error).message})`, accessAdvice(file));
  }
  if (size === 0) return refused('is empty (0 bytes), so it holds no queue (a full disk or an interrupted copy leaves such a file)');
  let header: Buffer;
  try {
    header = readHeader(file);
  } catch (err) {
    return refused(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, accessAdvice(file));
  }
  if (header.length < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) return refused('is not a SQLite database (is --queuefile pointing at the right file?)');
  let db: Database.Database | undefined;
  try {
    db = openForCheck(file, size);
    const rows = db.pragma('quick_check') as { quick_check: string }[];
    const first = rows[0]?.quick_check ?? 'no answer';
    if (first !== 'ok') return refused(`is damaged (SQLite quick_check: ${short(first)})`);
    const tables = new Set(db.prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`).all().map((r) => r.name));
    // An empty schema is a first start stopped before its tables were made: the server makes them.
    if (tables.size > 0 && !tables.has('folders')) return refused('is a SQLite database but not a scanrelay queue (it has no folders table)', 'Point --queuefile (SCANRELAY_QUEUEFILE) at the queue file, or at a new path to start with an empty queue.');
    const count = (table: string) => (tables.has(table) ? (db!.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0) : 0);
    return { state: 'ok', file, bytes: size, queued: count('folders'), history: count('history') };
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (code === 'SQLITE_NOTADB') return refused('is not a SQLite database (is --queuefile pointing at the right file?)');
    if (code.startsWith('SQLITE_CORRUPT')) return { state: 'refused', file, line: damagedLine(file, (err as Error).message) };
    if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_IOERR')) return refused(`cannot be opened (SQLite: ${(err as Error).message})`, accessAdvice(file));
    return refused(`could not be checked (SQLite: ${(err as Error).message})`);
  } finally {
    db?.close();
  }
}

/** The one line for `scanrelay check` on a healthy file. */
export function describeHealthy(c: Extract<QueueFileCheck, { state: 'ok' }>): string {
  const kib = Math.max(1, Math.round(c.bytes / 1024));
  return `ok: the queue file '${c.file}' (${kib} KiB) is a whole SQLite database: ${c.queued} folder(s) queued, ${c.history} history line(s).`;
}

/**
 * Without a -wal file beside it the database is all in the main file: a copy in memory, marked as a rollback
 * journal file (bytes 18-19), is checked without SQLite creating anything on disk. With one (a server runs, or was
 * killed), the file is opened read-only in place so that the WAL's commits are checked too; its -wal and -shm
 * already exist then.
 */
function openForCheck(file: string, size: number): Database.Database {
  if (existsSync(`${file}-wal`) || size > IN_MEMORY_LIMIT) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    // The queue's own small page cache (src/queue/file.ts): the check reads every page once.
    db.pragma('cache_size = -2000');
    return db;
  }
  const copy = readFileSync(file);
  copy[18] = 1;
  copy[19] = 1;
  return new Database(copy);
}

function readHeader(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(100);
    return buf.subarray(0, readSync(fd, buf, 0, 100, 0));
  } finally {
    closeSync(fd);
  }
}

const short = (text: string) => {
  const line = text.replace(/^\*\*\* in database main \*\*\*\n/, '').split('\n')[0]!.trim();
  return line.length > DETAIL_CHARS ? `${line.slice(0, DETAIL_CHARS - 1)}…` : line;
};

const moveAside = (file: string) =>
  `Put a backup back with \`${typed('restore <backup>')}\`, or move the file aside (mv '${file}' '${file}.bad') to start with an empty queue.`;

const accessAdvice = (file: string) =>
  `Give the user scanrelay runs as read and write access to it (chown that user '${file}'; chmod 600 '${file}'), or ${moveAside(file).replace(/^Put/, 'put')}`;
