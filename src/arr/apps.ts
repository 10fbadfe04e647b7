// The table of arr apps whose history scanrelay reads: per app, its API, the history event names it writes and
// what each record carries, how its webhook names the same things (the payload handed to the webhook's own parser,
// src/triggers/), and the Connect events `scanrelay connect` turns on. Whisparr v2 speaks Sonarr's API, v3 ("eros")
// Radarr's. From each app's src/NzbDrone.Core/History/ (HistoryService.cs; Lidarr's EntityHistoryService.cs), its
// API's HistoryResource.cs and NotificationResource.cs, at Sonarr develop 97d24ac, Radarr develop 1b9662d, Lidarr
// develop 0501e61, Readarr develop 4fb62c0, Whisparr develop a85a591 and eros 4fd34c0 (test/fixtures/README.md).
import type { ArrType } from '../config/arr-schema.js';
import { lidarrEvent } from '../triggers/lidarr.js';
import type { Payload } from '../triggers/payload.js';
import { radarrEvent } from '../triggers/radarr.js';
import { readarrEvent } from '../triggers/readarr.js';
import type { AppOutcome } from '../triggers/result.js';
import { sonarrEvent } from '../triggers/sonarr.js';
import type { Source } from '../request.js';

export interface ArrApp {
  name: 'sonarr' | 'radarr' | 'lidarr' | 'readarr';
  /** The API's base path. */
  api: '/api/v3' | '/api/v1';
  /** The webhook's parser: a history record becomes the payload that webhook would have carried, read by it. */
  parse: (payload: Payload, event: string, source: Source) => AppOutcome;
  /** History events that imported a file, with its path in `data.importedPath`. */
  imports: readonly string[];
  /** A file deleted: its path is the record's `sourceTitle`, why in `data.reason`. */
  fileDeleted: string;
  /** A file renamed: `data.sourcePath` (before) and `data.path` (after). */
  renamed: string;
  /** Tags rewritten in place: the path is `sourceTitle`. */
  retagged?: string;
  /** The record's field naming what a file holds (an upgrade's delete and its import share it). */
  item: 'episodeId' | 'movieId' | 'trackId' | 'bookId';
  /** The record's field naming the series, movie, artist or author. */
  owner: 'seriesId' | 'movieId' | 'artistId' | 'authorId';
  /** How the webhook payload names things. */
  payload: {
    owner: 'series' | 'movie' | 'artist' | 'author';
    /** One imported file per Download (Sonarr, Radarr) or the release's files (Lidarr, Readarr). */
    imported: { one: 'episodeFile' | 'movieFile' } | { many: 'trackFiles' | 'bookFiles' };
    /** The file of a file delete or retag. */
    file: 'episodeFile' | 'movieFile' | 'trackFile' | 'bookFile';
    renamed: 'renamedEpisodeFiles' | 'renamedMovieFiles' | 'renamedTrackFiles' | 'renamedBookFiles';
    /** The webhook event of a deleted file; Lidarr has none, so the catch-up names it TrackFileDelete. */
    deleteEvent: 'EpisodeFileDelete' | 'MovieFileDelete' | 'BookFileDelete' | undefined;
    /** The webhook event of a whole series, movie, artist or author deleted, and the owner's field holding its folder. */
    ownerDelete: 'SeriesDelete' | 'MovieDelete' | 'ArtistDelete' | 'AuthorDelete';
    ownerFolder: 'path' | 'folderPath';
  };
  /**
   * Every series, movie, artist or author with its folder (`path` of Series/Movie/Artist/AuthorResource): the apps
   * delete an item's history with it, so a delete missed is found by the folder missing from this list.
   */
  library: '/series' | '/movie' | '/artist' | '/author';
  /** Where the owner's IDs are read (tvdbId, tmdbId, imdbId), as the webhook carries them for PLEX_FIX_MISMATCHED. */
  ownerPath?: '/series' | '/movie';
  /** The Webhook Connect entry's events: import, upgrade, rename and the delete events the app has. */
  connect: readonly string[];
}

const sonarrApp: ArrApp = {
  name: 'sonarr',
  api: '/api/v3',
  parse: sonarrEvent,
  // SeriesFolderImported is in the enum but no longer written (HistoryService.cs); kept for old records.
  imports: ['downloadFolderImported', 'seriesFolderImported'],
  fileDeleted: 'episodeFileDeleted',
  renamed: 'episodeFileRenamed',
  item: 'episodeId',
  owner: 'seriesId',
  payload: { owner: 'series', imported: { one: 'episodeFile' }, file: 'episodeFile', renamed: 'renamedEpisodeFiles', deleteEvent: 'EpisodeFileDelete', ownerDelete: 'SeriesDelete', ownerFolder: 'path' },
  library: '/series',
  ownerPath: '/series',
  connect: ['onDownload', 'onUpgrade', 'onRename', 'onSeriesDelete', 'onEpisodeFileDelete'],
};

const radarrApp: ArrApp = {
  name: 'radarr',
  api: '/api/v3',
  parse: radarrEvent,
  // MovieFolderImported is "not used yet" (History.cs); read like an import should it ever be written.
  imports: ['downloadFolderImported', 'movieFolderImported'],
  fileDeleted: 'movieFileDeleted',
  renamed: 'movieFileRenamed',
  item: 'movieId',
  owner: 'movieId',
  payload: { owner: 'movie', imported: { one: 'movieFile' }, file: 'movieFile', renamed: 'renamedMovieFiles', deleteEvent: 'MovieFileDelete', ownerDelete: 'MovieDelete', ownerFolder: 'folderPath' },
  // WebhookMovie.FolderPath is movie.Path (Radarr's Notifications/Webhook/WebhookMovie.cs).
  library: '/movie',
  ownerPath: '/movie',
  connect: ['onDownload', 'onUpgrade', 'onRename', 'onMovieDelete', 'onMovieFileDelete'],
};

const lidarrApp: ArrApp = {
  name: 'lidarr',
  api: '/api/v1',
  parse: lidarrEvent,
  imports: ['trackFileImported'],
  fileDeleted: 'trackFileDeleted',
  renamed: 'trackFileRenamed',
  retagged: 'trackFileRetagged',
  item: 'trackId',
  owner: 'artistId',
  payload: { owner: 'artist', imported: { many: 'trackFiles' }, file: 'trackFile', renamed: 'renamedTrackFiles', deleteEvent: undefined, ownerDelete: 'ArtistDelete', ownerFolder: 'path' },
  library: '/artist',
  connect: ['onReleaseImport', 'onUpgrade', 'onRename', 'onArtistDelete', 'onAlbumDelete', 'onTrackRetag'],
};

const readarrApp: ArrApp = {
  name: 'readarr',
  api: '/api/v1',
  parse: readarrEvent,
  imports: ['bookFileImported'],
  fileDeleted: 'bookFileDeleted',
  renamed: 'bookFileRenamed',
  retagged: 'bookFileRetagged',
  item: 'bookId',
  owner: 'authorId',
  payload: { owner: 'author', imported: { many: 'bookFiles' }, file: 'bookFile', renamed: 'renamedBookFiles', deleteEvent: 'BookFileDelete', ownerDelete: 'AuthorDelete', ownerFolder: 'path' },
  library: '/author',
  connect: ['onReleaseImport', 'onUpgrade', 'onRename', 'onAuthorDelete', 'onBookDelete', 'onBookFileDelete', 'onBookRetag'],
};

/** Each app's base path, known before its version is: every app answers system/status under it. */
export const API_BASE: Record<ArrType, ArrApp['api']> = { sonarr: '/api/v3', radarr: '/api/v3', lidarr: '/api/v1', readarr: '/api/v1', whisparr: '/api/v3' };

/** How an app of this type and version writes its history; Whisparr from 3.0 on is Radarr's code. */
export function arrApp(type: ArrType, version: string | undefined): ArrApp {
  switch (type) {
    case 'sonarr':
      return sonarrApp;
    case 'radarr':
      return radarrApp;
    case 'lidarr':
      return lidarrApp;
    case 'readarr':
      return readarrApp;
    case 'whisparr':
      return Number.parseInt(version ?? '', 10) >= 3 ? radarrApp : sonarrApp;
  }
}

/** The history events the catch-up reads of an app, one request each. */
export function eventsRead(f: ArrApp): string[] {
  return [...f.imports, f.fileDeleted, f.renamed, ...(f.retagged ? [f.retagged] : [])];
}

