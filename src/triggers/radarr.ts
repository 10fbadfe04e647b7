// Radarr (and Whisparr v3, which sends the same shapes): which files an event changed.
import type { Source } from '../request.js';
import { filePathOf, objectAt, objectsAt, pathAt, type Payload } from './payload.js';
import type { ArrTrigger } from './arr-trigger.js';
import { ignored, unhandled, type AppOutcome } from './result.js';
import { externalIds, withIds } from './ids.js';
import { ScanList } from './scan-list.js';

export const radarr: ArrTrigger<'radarr'> = {
  source: 'radarr',
  key: 'movie',
  marks: ['movieFile', 'renamedMovieFiles'],
  events: ['MovieAdded', 'MovieDelete', 'MovieFileDelete'],
  parse: radarrEvent,
};

export function radarrEvent(payload: Payload, event: string, source: Source): AppOutcome {
  const folderPath = pathAt(objectAt(payload, 'movie'), 'folderPath');
  switch (event) {
    case 'Download': {
      const upgrade = payload.isUpgrade === true ? 'Upgrade' : 'Download';
      const path = filePathOf(objectAt(payload, 'movieFile'), folderPath);
      if (path === undefined) return ignored(upgrade, 'Download event has no movieFile.path');
      const list = new ScanList(source, upgrade).file(path);
      if (upgrade === 'Upgrade') {
        for (const old of objectsAt(payload, 'deletedFiles') ?? []) {
          const oldPath = filePathOf(old, folderPath);
          if (oldPath !== undefined) list.deletedFile(oldPath);
        }
      }
      return { kind: 'scan', event: upgrade, requests: withIds(list.requests(), externalIds(payload, 'movie')) };
    }
    case 'Rename': {
      const list = new ScanList(source, event).renamed(objectsAt(payload, 'renamedMovieFiles') ?? [], folderPath);
      // Radarr before 4.0 sent Rename without the file list: the movie folder is all we know.
      if (list.size === 0 && folderPath !== undefined) list.folder(folderPath);
      if (list.size === 0) return ignored(event, 'Rename event has no renamedMovieFiles[].path and no movie.folderPath');
      return { kind: 'scan', event, requests: list.requests() };
    }
    case 'MovieFileDelete': {
      const path = filePathOf(objectAt(payload, 'movieFile'), folderPath);
      if (path === undefined) return ignored(event, 'MovieFileDelete event has no movieFile.path');
      return { kind: 'scan', event, requests: new ScanList(source, event).deletedFile(path).requests() };
    }
    case 'MovieDelete':
      if (folderPath === undefined) return ignored(event, 'MovieDelete event has no movie.folderPath');
      // Radarr's "Delete files" left unticked: the movie is gone from Radarr, its folder is still on disk.
      if (payload.deletedFiles === false) return ignored(event, `MovieDelete kept the files (deletedFiles false): '${folderPath}' is still on disk, nothing for a media server to change`);
      return { kind: 'scan', event, requests: new ScanList(source, event).deletedFolder(folderPath).requests() };
    default:
      return unhandled(event);
  }
}
