// `scanrelay backup <file>` and `scanrelay restore <file>`: a consistent copy of the queue file (queue, history,
// Drive cache) taken with SQLite's online backup while the server runs, and putting one back.
import Database from '../sqlite/binding.js';
import { Command } from 'commander';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { resolveSettings } from '../config/load.js';
import { schemaVersion } from '../queue/schema.js';
import { globalFlags } from './context.js';

/** A problem the person running the command must fix; printed as one line, exit 1. */
class BackupError extends Error {}

function queuefileOf(cmd: Command): string {
  // Only the queue file's location is needed: no config is loaded (or written) for these commands.
  return resolveSettings(globalFlags(cmd), process.env, process.cwd()).settings.queuefile;
}

/** Opens a file that must be a scanrelay queue file this version can read; says what is wrong otherwise. */
function openQueueFile(file: string, what: string): Database.Database {
  if (!existsSync(file)) throw new BackupError(`${what} '${file}' does not exist: check the path${what === 'queue file' ? ' (--queuefile)' : ''}`);
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const tables = db.prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`).all().map((r) => r.name);
    if (!tables.includes('folders') || !tables.includes('history')) throw new BackupError(`${what} '${file}' is a SQLite file but not a scanrelay queue (no folders/history tables)`);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > schemaVersion) throw new BackupError(`${what} '${file}' was written by a newer scanrelay (schema ${version}, this one knows ${schemaVersion}): upgrade scanrelay first`);
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`${what} '${file}' is damaged (${String(check)}): use another backup`);
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof BackupError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_NOTADB') throw new BackupError(`${what} '${file}' is not a SQLite database: is it the right file?`);
    throw new BackupError(`cannot open ${what} '${file}': ${(err as Error).message}`);
  }
}

function contents(db: Database.Database): { folders: number; history: number } {
  const n = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  return { folders: n('folders'), history: n('history') };
}

const kib = (file: string) => `${Math.max(1, Math.round(statSync(file).size / 1024))} KiB`;

/** Copies `from` into a new file at `to` through SQLite's backup API: consistent even while another process writes. */
async function copyDatabase(from: Database.Database, to: string): Promise<void> {
  const partial = `${to}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  try {
    await from.backup(partial);
    chmodSync(partial, 0o600);
    // Renamed only once complete, so a file at `to` is never half a backup.
    renameSync(partial, to);
  } finally {
    rmSync(partial, { force: true });
  }
}

/** True when another process (a running server) has the queue file open. */
function inUse(file: string): boolean {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    // In WAL mode, an exclusive lock is refused while any other connection has the file open.
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw err;
  } finally {
    db.close();
  }
}

async function backup(cmd: Command, file: string, opts: { force?: boolean }): Promise<string> {
  const queuefile = queuefileOf(cmd);
  const target = resolve(file);
  if (target === queuefile) throw new BackupError(`the backup must go to another file than the queue file '${queuefile}'`);
  if (existsSync(target) && !opts.force) throw new BackupError(`'${target}' already exists: choose another name, or add --force to replace it`);
  const db = openQueueFile(queuefile, 'queue file');
  try {
    await copyDatabase(db, target);
  } catch (err) {
    throw new BackupError(`could not write the backup '${target}': ${(err as Error).message}. Is there room on that disk and may scanrelay write there?`);
  } finally {
    db.close();
  }
  const copy = openQueueFile(target, 'backup');
  const n = contents(copy);
  copy.close();
  return `Backed up '${queuefile}' to '${target}' (${kib(target)}): ${n.folders} queued folder(s), ${n.history} history line(s).`;
}

async function restore(cmd: Command, file: string): Promise<string> {
  const queuefile = queuefileOf(cmd);
  const source = resolve(file);
  if (source === queuefile) throw new BackupError(`'${source}' is the queue file itself: name a backup file`);
  const from = openQueueFile(source, 'backup');
  try {
    const n = contents(from);
    let kept = '';
    if (existsSync(queuefile)) {
      if (inUse(queuefile)) throw new BackupError(`the queue file '${queuefile}' is in use by another process: stop the server first (systemctl stop scanrelay, docker compose stop scanrelay), then restore`);
      // The queue being replaced is kept, so a restore of the wrong file loses nothing.
      const current = new Database(queuefile, { fileMustExist: true });
      try {
        await copyDatabase(current, `${queuefile}.before-restore`);
      } finally {
        current.close();
      }
      kept = ` The queue it replaced is in '${queuefile}.before-restore'.`;
    }
    mkdirSync(dirname(queuefile), { recursive: true });
    const partial = `${queuefile}.restoring-${process.pid}`;
    await copyDatabase(from, partial);
    // The old file's WAL must not be replayed onto the restored one.
    for (const suffix of ['-wal', '-shm']) rmSync(`${queuefile}${suffix}`, { force: true });
    renameSync(partial, queuefile);
    return `Restored ${n.folders} queued folder(s) and ${n.history} history line(s) from '${source}' into '${queuefile}'.${kept} Start the server to continue.`;
  } finally {
    from.close();
  }
}

function run(action: () => Promise<string>): Promise<void> {
  return action().then(
    (said) => {
      process.stdout.write(`${said}\n`);
    },
    (err: unknown) => {
      if (!(err instanceof BackupError)) throw err;
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 1;
    },
  );
}

export function backupCommand(): Command {
  return new Command('backup')
    .description('copy the queue file (queue, history, Drive cache) to <file>; safe while the server runs')
    .argument('<file>', 'where the backup goes (written as 0600; an existing file needs --force)')
    .option('--force', 'replace <file> if it exists')
    .action((file: string, opts: { force?: boolean }, cmd: Command) => run(() => backup(cmd, file, opts)));
}

export function restoreCommand(): Command {
  return new Command('restore')
    .description('replace the queue file with a backup; stop the server first (the replaced queue is kept as <queuefile>.before-restore)')
    .argument('<file>', 'a file written by `scanrelay backup`')
    .action((file: string, _opts: unknown, cmd: Command) => run(() => restore(cmd, file)));
}
