// Libraries for the Jellyfin model, laid out as the arr apps lay them out: /tv/<Series>/Season NN/<episode>.mkv
// and /movies/<Title (Year)>/<Title (Year)>.mkv. Built on disk and settled into the database, as after a scan
// long ago, so a test starts from a server that knows everything on disk.
import type { JellyfinModel, ModelLibrary } from './jellyfin-model.js';

export const seriesName = (n: number): string => `Series ${String(n).padStart(4, '0')}`;
export const seasonFolder = (tv: string, series: number, season: number): string => `${tv}/${seriesName(series)}/Season ${String(season).padStart(2, '0')}`;
export const episodeFile = (tv: string, series: number, season: number, episode: number): string =>
  `${seasonFolder(tv, series, season)}/${seriesName(series)} - S${String(season).padStart(2, '0')}E${String(episode).padStart(2, '0')}.mkv`;
export const movieFolder = (movies: string, n: number): string => `${movies}/Movie ${String(n).padStart(5, '0')} (2020)`;
export const movieFile = (movies: string, n: number): string => `${movieFolder(movies, n)}/Movie ${String(n).padStart(5, '0')} (2020).mkv`;

export interface TvShape {
  series: number;
  seasons: number;
  episodes: number;
}

/** A library's options: real-time monitoring, and whether its disk is a network mount (no inotify events). */
export type LibrarySetup = Partial<Pick<ModelLibrary, 'realtimeMonitor' | 'networkMount'>>;

export function tvLibrary(model: JellyfinModel, location: string, shape: TvShape, name = 'Shows', options: LibrarySetup = {}): ModelLibrary {
  const lib = model.addLibrary(name, 'tvshows', location);
  for (let s = 1; s <= shape.series; s++) {
    for (let n = 1; n <= shape.seasons; n++) {
      for (let e = 1; e <= shape.episodes; e++) model.writeFile(episodeFile(location, s, n, e));
    }
  }
  // Switched on once the library is on disk: what was there before is no change the watcher saw.
  return Object.assign(lib, options);
}

export function movieLibrary(model: JellyfinModel, location: string, movies: number, name = 'Movies', options: LibrarySetup = {}): ModelLibrary {
  const lib = model.addLibrary(name, 'movies', location);
  for (let m = 1; m <= movies; m++) model.writeFile(movieFile(location, m));
  return Object.assign(lib, options);
}
