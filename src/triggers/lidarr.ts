// Lidarr: which files an event changed. Track files carry absolute paths only.
import type { Source } from '../request.js';
import { filePathOf, objectAt, objectsAt, pathAt, type Payload } from './payload.js';
import type { ArrTrigger } from './arr-trigger.js';
import { ignored, unhandled, type AppOutcome } from './result.js';
import { ScanList } from './scan-list.js';

export const lidarr: ArrTrigger<'lidarr'> = {
  source: 'lidarr',
  key: 'artist',
  marks: ['trackFile', 'trackFiles', 'renamedTrackFiles'],
  events: ['Retag', 'ArtistAdd', 'ArtistDelete', 'AlbumDelete'],
  parse: lidarrEvent,
};

export function lidarrEvent(payload: Payload, event: string, source: Source): AppOutcome {
  const artistPath = pathAt(objectAt(payload, 'artist'), 'path');
  switch (event) {
    case 'Download': {
      // One Download per album release; a multi-disc album spreads over "CD 01/", "CD 02/" folders.
      const upgrade = payload.isUpgrade === true ? 'Upgrade' : 'Download';
      const list = new ScanList(source, upgrade).filesByFolder(filePaths(payload, 'trackFiles', artistPath));
      if (list.size === 0) return ignored(upgrade, 'Download event has no trackFiles[].path');
      if (upgrade === 'Upgrade') list.filesByFolder(filePaths(payload, 'deletedFiles', artistPath), true);
      return { kind: 'scan', event: upgrade, requests: list.requests() };
    }
    case 'Rename': {
      const list = new ScanList(source, event).renamed(objectsAt(payload, 'renamedTrackFiles') ?? [], artistPath);
      // Lidarr before 1.1.2 sent Rename without the file list: the artist folder is all we know.
      if (list.size === 0 && artistPath !== undefined) list.folder(artistPath);
      if (list.size === 0) return ignored(event, 'Rename event has no renamedTrackFiles[].path and no artist.path');
      return { kind: 'scan', event, requests: list.requests() };
    }
    case 'Retag': {
      const path = filePathOf(objectAt(payload, 'trackFile'), artistPath);
      if (path === undefined) return ignored(event, 'Retag event has no trackFile.path');
      return { kind: 'scan', event, requests: new ScanList(source, event).file(path).requests() };
    }
    case 'AlbumDelete':
    case 'ArtistDelete':
      // The album has no path of its own in the payload, so an album delete scans the artist folder.
      if (artistPath === undefined) return ignored(event, `${event} event has no artist.path`);
      return { kind: 'scan', event, requests: new ScanList(source, event).deletedFolder(artistPath).requests() };
    default:
      return unhandled(event);
  }
}

function filePaths(payload: Payload, key: string, artistPath: string | undefined): string[] {
  // plex_autoscan also took artist.path + relativePath; Lidarr sends only `path`, hand-made bodies may not.
  const paths = (objectsAt(payload, key) ?? []).map((f) => filePathOf(f, artistPath));
  return paths.filter((p): p is string => p !== undefined);
}
