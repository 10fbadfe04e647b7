// One turn's requests as row changes: those naming the same folder are folded into one, by the rules the merge
// statement (src/queue/statements.ts) applies to a request at a time, so the queue runs one lookup and one write
// per folder however many requests name it.
import type { FolderFiles, FolderRequest } from '../scan.js';
import { addFile, noFiles } from './files.js';

/** The requests by folder, in the order each folder first appears. */
export function foldByFolder(reqs: FolderRequest[]): Map<string, Folded> {
  const folded = new Map<string, Folded>();
  for (const req of reqs) {
    const f = folded.get(req.folder);
    if (f) fold(f, req);
    else folded.set(req.folder, first(req));
  }
  return folded;
}

/** Several requests for one folder as one row's worth of change, with the merge statement's rules. */
export interface Folded {
  folder: string;
  priority: number;
  source: string;
  event: string;
  fileHint: string | null;
  /** 1 when every request says the path is gone (insert: all_deleted; merge: keeps the row's own). */
  deleted: 0 | 1;
  anyDeleted: 0 | 1;
  refresh: string | null;
  ids: FolderRequest['ids'] | null;
  received: string | null;
  count: number;
  /** The shortest delay any of the requests asked for (SERVER_SCAN_DELAYS), or null for the queue's own. */
  delayMs: number | null;
  /** 1 when any request asked for a whole-library scan of a library's own folder. */
  libraryRoot: 0 | 1;
  /** The files the requests named, new and deleted. */
  files: FolderFiles;
}

function first(req: FolderRequest): Folded {
  return {
    folder: req.folder,
    priority: req.priority,
    source: req.source,
    event: req.event,
    fileHint: req.deleted ? null : (req.fileHint ?? null),
    deleted: req.deleted ? 1 : 0,
    anyDeleted: req.deleted ? 1 : 0,
    refresh: req.refresh ?? null,
    ids: req.ids ?? null,
    received: req.received ?? null,
    count: 1,
    delayMs: req.delayMs ?? null,
    libraryRoot: req.libraryRoot ? 1 : 0,
    files: filesOf(req),
  };
}

function filesOf(req: FolderRequest): FolderFiles {
  const files = noFiles();
  if (req.fileHint) addFile(files, req.fileHint, req.deleted);
  return files;
}

function fold(f: Folded, req: FolderRequest): void {
  f.priority = Math.min(f.priority, req.priority);
  f.source = req.source;
  f.event = req.event;
  if (!req.deleted && req.fileHint) f.fileHint = req.fileHint;
  if (!req.deleted) f.deleted = 0;
  else f.anyDeleted = 1;
  f.refresh = req.refresh === 'item' || f.refresh === 'item' ? 'item' : (req.refresh ?? f.refresh);
  f.ids = req.ids ?? f.ids;
  f.received = req.received ?? f.received;
  f.count++;
  if (req.delayMs !== undefined) f.delayMs = f.delayMs === null ? req.delayMs : Math.min(f.delayMs, req.delayMs);
  if (req.libraryRoot) f.libraryRoot = 1;
  if (req.fileHint) addFile(f.files, req.fileHint, req.deleted);
}
