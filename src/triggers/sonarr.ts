// Sonarr (and Whisparr v2, which sends the same shapes): which files an event changed.
import type { Source } from '../request.js';
import { filePathOf, objectAt, objectsAt, pathAt, type Payload } from './payload.js';
import type { ArrTrigger } from './arr-trigger.js';
import { ignored, unhandled, type AppOutcome } from './result.js';
import { externalIds, withIds } from './ids.js';
import { ScanList } from './scan-list.js';

export const sonarr: ArrTrigger<'sonarr'> = {
  source: 'sonarr',
  key: 'series',
  marks: ['episodeFile', 'episodeFiles', 'renamedEpisodeFiles'],
  events: ['SeriesAdd', 'SeriesDelete', 'EpisodeFileDelete'],
  parse: sonarrEvent,
};

export function sonarrEvent(payload: Payload, event: string, source: Source): AppOutcome {
  const seriesPath = pathAt(objectAt(payload, 'series'), 'path');
  switch (event) {
    case 'Download':
      return download(payload, seriesPath, source);
    case 'Rename': {
      const list = new ScanList(source, event).renamed(objectsAt(payload, 'renamedEpisodeFiles') ?? [], seriesPath);
      // Sonarr before 3.0.10 sent Rename without the file list: the series folder is all we know.
      if (list.size === 0 && seriesPath !== undefined) list.folder(seriesPath);
      if (list.size === 0) return ignored(event, 'Rename event has no renamedEpisodeFiles[].path and no series.path');
      return { kind: 'scan', event, requests: list.requests() };
    }
    case 'EpisodeFileDelete': {
      const path = filePathOf(objectAt(payload, 'episodeFile'), seriesPath);
      if (path === undefined) return ignored(event, 'EpisodeFileDelete event has no episodeFile.path');
      return { kind: 'scan', event, requests: new ScanList(source, event).deletedFile(path).requests() };
    }
    case 'SeriesDelete':
      if (seriesPath === undefined) return ignored(event, 'SeriesDelete event has no series.path');
      // Sonarr's "Delete files" left unticked: the series is gone from Sonarr, its folder is still on disk.
      if (payload.deletedFiles === false) return ignored(event, `SeriesDelete kept the files (deletedFiles false): '${seriesPath}' is still on disk, nothing for a media server to change`);
      return { kind: 'scan', event, requests: new ScanList(source, event).deletedFolder(seriesPath).requests() };
    default:
      return unhandled(event);
  }
}

/**
 * Two payloads share eventType "Download": one per imported file (`episodeFile`, maybe an upgrade)
 * and, since Sonarr 4.0.6, one per finished download ("On Import Complete": `episodeFiles[]`).
 */
function download(payload: Payload, seriesPath: string | undefined, source: Source): AppOutcome {
  // plex_autoscan's scan_type: an upgrade is reported as its own event.
  const event = payload.isUpgrade === true ? 'Upgrade' : 'Download';
  const list = new ScanList(source, event);
  const episodeFile = objectAt(payload, 'episodeFile');
  if (episodeFile !== undefined) {
    const path = filePathOf(episodeFile, seriesPath);
    if (path === undefined) return ignored(event, 'Download event has no episodeFile.path');
    list.file(path);
  } else {
    const paths = (objectsAt(payload, 'episodeFiles') ?? []).map((f) => filePathOf(f, seriesPath));
    list.filesByFolder(paths.filter((p): p is string => p !== undefined));
    // destinationPath is only the longest common folder: a two-season pack would scan the whole series.
    const destination = pathAt(payload, 'destinationPath');
    if (list.size === 0 && destination !== undefined) list.folder(destination);
    if (list.size === 0) {
      return ignored(event, 'Download event has no episodeFile.path, episodeFiles[].path or destinationPath');
    }
  }
  if (event === 'Upgrade') {
    for (const old of objectsAt(payload, 'deletedFiles') ?? []) {
      const path = filePathOf(old, seriesPath);
      if (path !== undefined) list.deletedFile(path);
    }
  }
  return { kind: 'scan', event, requests: withIds(list.requests(), externalIds(payload, 'series')) };
}
