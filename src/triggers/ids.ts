// The series/movie IDs of a Sonarr or Radarr download (series.tvdbId, movie.tmdbId, imdbId, the title), carried on
// its file requests for PLEX_FIX_MISMATCHED (src/targets/plex/match.ts).
import type { ExternalIds } from '../scan.js';
import type { ScanRequest } from '../request.js';
import { objectAt, type Payload } from './payload.js';

function idAt(o: Payload | undefined, key: string): string | undefined {
  const v = o?.[key];
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return String(v);
  if (typeof v === 'string' && /^[A-Za-z0-9]+$/.test(v) && v !== '0') return v;
  return undefined;
}

export function externalIds(payload: Payload, kind: 'series' | 'movie'): ExternalIds | undefined {
  const main = objectAt(payload, kind);
  // Radarr before v3 named the IDs only on remoteMovie (plex_autoscan read them there).
  const remote = kind === 'movie' ? objectAt(payload, 'remoteMovie') : undefined;
  const pick = (key: string) => idAt(main, key) ?? idAt(remote, key);
  const ids: ExternalIds = {};
  for (const [field, key] of [['tvdb', 'tvdbId'], ['tmdb', 'tmdbId'], ['imdb', 'imdbId']] as const) {
    const v = pick(key);
    if (v) ids[field] = v;
  }
  const title = main?.title ?? remote?.title;
  if (typeof title === 'string' && title !== '') ids.title = title;
  return ids.tvdb || ids.tmdb || ids.imdb ? ids : undefined;
}

/** The IDs on each request that names a present file (deleted files have nothing to match). */
export function withIds(requests: ScanRequest[], ids: ExternalIds | undefined): ScanRequest[] {
  if (!ids) return requests;
  return requests.map((r) => (r.kind === 'file' && !r.deleted ? { ...r, ids } : r));
}
