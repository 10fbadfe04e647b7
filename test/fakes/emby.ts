// A fake Emby on 127.0.0.1: the MediaBrowser recorder with X-Emby-Token auth and /Library/VirtualFolders/Query;
// startEmbyServer is the model server answering as Emby (what a follow-up needs: items that change, LibraryChanged).
import { ownFixture } from '../support/fixtures.js';
import { startFakeMediaBrowser, type FakeMediaBrowser } from './jellyfin.js';
import { startJellyfinServer, type JellyfinServer, type JellyfinServerOptions } from './jellyfin-server.js';

export type { FakeItem, FakeMediaBrowser, Failure, RecordedRequest } from './jellyfin.js';

export function startFakeEmby(opts: { token?: string; libraries?: unknown } = {}): Promise<FakeMediaBrowser> {
  return startFakeMediaBrowser({
    token: opts.token ?? 'emby-token-5678',
    authorised: (headers, token) => headers['x-emby-token'] === token,
    librariesPath: '/Library/VirtualFolders/Query',
    libraries: opts.libraries ?? ownFixture('emby/library-virtualfolders-query.json'),
    updatedStatus: 200,
  });
}

/**
 * The model server answering as Emby (test/fakes/jellyfin-server.ts, kind 'emby'): the model's disk, database and
 * library monitor, /embywebsocket, and LibraryChanged batched by FakeLibraryChangedNotifier to users' sockets.
 */
export function startEmbyServer(opts: Omit<JellyfinServerOptions, 'kind'> = {}): Promise<JellyfinServer> {
  return startJellyfinServer({ ...opts, kind: 'emby' });
}
