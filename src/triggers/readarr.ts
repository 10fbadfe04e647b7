// Readarr: which files an event changed. Book files carry absolute paths (relative ones are joined to author.path).
import type { Source } from '../request.js';
import { filePathOf, objectAt, objectsAt, pathAt, type Payload } from './payload.js';
import type { ArrTrigger } from './arr-trigger.js';
import { ignored, unhandled, type AppOutcome } from './result.js';
import { ScanList } from './scan-list.js';

export const readarr: ArrTrigger<'readarr'> = {
  source: 'readarr',
  key: 'author',
  marks: ['bookFile', 'bookFiles', 'renamedBookFiles'],
  events: ['Retag', 'AuthorAdded', 'AuthorDelete', 'BookDelete', 'BookFileDelete'],
  parse: readarrEvent,
};

export function readarrEvent(payload: Payload, event: string, source: Source): AppOutcome {
  const authorPath = pathAt(objectAt(payload, 'author'), 'path');
  switch (event) {
    case 'Download': {
      // One Download per book; an audiobook is many files in one folder, so one request per folder.
      const upgrade = payload.isUpgrade === true ? 'Upgrade' : 'Download';
      const list = new ScanList(source, upgrade).filesByFolder(filePaths(payload, 'bookFiles', authorPath));
      if (list.size === 0) return ignored(upgrade, 'Download event has no bookFiles[].path');
      if (upgrade === 'Upgrade') list.filesByFolder(filePaths(payload, 'deletedFiles', authorPath), true);
      return { kind: 'scan', event: upgrade, requests: list.requests() };
    }
    case 'Rename': {
      const list = new ScanList(source, event).renamed(objectsAt(payload, 'renamedBookFiles') ?? [], authorPath);
      if (list.size === 0 && authorPath !== undefined) list.folder(authorPath);
      if (list.size === 0) return ignored(event, 'Rename event has no renamedBookFiles[].path and no author.path');
      return { kind: 'scan', event, requests: list.requests() };
    }
    case 'Retag': {
      const path = filePathOf(objectAt(payload, 'bookFile'), authorPath);
      if (path === undefined) return ignored(event, 'Retag event has no bookFile.path');
      return { kind: 'scan', event, requests: new ScanList(source, event).file(path).requests() };
    }
    case 'BookFileDelete': {
      const path = filePathOf(objectAt(payload, 'bookFile'), authorPath);
      if (path === undefined) return ignored(event, 'BookFileDelete event has no bookFile.path');
      return { kind: 'scan', event, requests: new ScanList(source, event).deletedFile(path).requests() };
    }
    case 'BookDelete':
    case 'AuthorDelete':
      // The book has no folder of its own in the payload, so a book delete scans the author folder.
      if (authorPath === undefined) return ignored(event, `${event} event has no author.path`);
      return { kind: 'scan', event, requests: new ScanList(source, event).deletedFolder(authorPath).requests() };
    default:
      return unhandled(event);
  }
}

function filePaths(payload: Payload, key: string, authorPath: string | undefined): string[] {
  // `path` as Readarr sends it; a hand-made body may give only relativePath under the author's folder.
  const paths = (objectsAt(payload, key) ?? []).map((f) => filePathOf(f, authorPath));
  return paths.filter((p): p is string => p !== undefined);
}
