// Builds the follower of a Jellyfin or Emby target from the target's own parts: its API caller, its library list
// and item locator (so the listing finds the refreshed folder's item as the scan did), its websocket, and, on
// Jellyfin, how to tell whether the token belongs to a user (only then does LibraryChanged reach the socket).
import { MEDIABROWSER_USER } from '../../http/answer-caps.js';
import type { ApiCaller } from '../../http/api-call.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log/logger.js';
import type { Dial } from '../../http/media-socket.js';
import type { Library } from '../../scan.js';
import { version } from '../../version.js';
import type { LibraryList } from '../library-list.js';
import { MediaBrowserFollower } from './follower.js';
import type { FollowTimings } from './follow-timings.js';
import type { MediaBrowserScans } from './scan.js';
import { MediaBrowserSocket } from './socket.js';

export interface FollowSettings {
  /** Open the server's websocket (default true); without it every file is confirmed by listing. */
  socket?: boolean;
  dial?: Dial;
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  timings?: Partial<FollowTimings>;
}

/** The little of the target's flavour and options the follower needs (not imported: mediabrowser/target.ts imports this). */
interface Server {
  kind: 'jellyfin' | 'emby';
  librariesPath: string;
  name: string;
  url: string;
  token: string;
}

interface TargetParts {
  api: ApiCaller;
  clock: Clock;
  log: Logger;
  scans: MediaBrowserScans;
  list: LibraryList<Library>;
}

export function mediaBrowserFollower(server: Server, settings: FollowSettings, parts: TargetParts): MediaBrowserFollower {
  const flavour = server;
  const opts = server;
  const { api, clock, log, scans, list } = parts;
  const socket =
    settings.socket === false
      ? undefined
      : new MediaBrowserSocket({
          kind: flavour.kind,
          url: opts.url,
          token: opts.token,
          // Stable per target: the server keys the socket's session on it, across our restarts too.
          deviceId: `scanrelay-${opts.name}`,
          version,
          clock,
          dial: settings.dial,
          firstBackoffMs: settings.firstBackoffMs,
          maxBackoffMs: settings.maxBackoffMs,
        });
  return new MediaBrowserFollower({
    server: flavour.kind === 'jellyfin' ? 'Jellyfin' : 'Emby',
    api,
    clock,
    logger: log,
    librariesPath: flavour.librariesPath,
    async locate(folder) {
      const all = await list.get({ holding: folder });
      return scans.locateFolder(all.map((l) => ({ id: l.id, name: l.title, locations: l.locations })), folder);
    },
    socket,
    tokenHasUser: flavour.kind === 'jellyfin' ? () => jellyfinTokenHasUser(api) : undefined,
    timings: settings.timings,
    watch: scans.watch,
    lastMonitorChange: (libraries) => scans.lastMonitorChange(libraries),
  });
}

/**
 * Jellyfin's GET /Users/Me answers the token's user, and 400 "Token is not owned by a user" for an API key
 * (jellyfin@c3ed140 Jellyfin.Api/Controllers/UserController.cs L575-600). Anything else: not known.
 */
export async function jellyfinTokenHasUser(api: ApiCaller): Promise<boolean | undefined> {
  const answer = await api.call('GET', '/Users/Me', { cap: MEDIABROWSER_USER, anyStatus: true });
  await answer.body?.cancel();
  if (answer.status >= 200 && answer.status < 300) return true;
  return answer.status === 400 ? false : undefined;
}
