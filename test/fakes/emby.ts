// A fake Emby on 127.0.0.1: the MediaBrowser fake with X-Emby-Token auth and /Library/SelectableMediaFolders.
import { ownFixture } from '../support/fixtures.js';
import { startFakeMediaBrowser, type FakeMediaBrowser } from './jellyfin.js';

export type { FakeItem, FakeMediaBrowser, Failure, RecordedRequest } from './jellyfin.js';

export function startFakeEmby(opts: { token?: string; libraries?: unknown } = {}): Promise<FakeMediaBrowser> {
  return startFakeMediaBrowser({
    token: opts.token ?? 'emby-token-5678',
    authorised: (headers, token) => headers['x-emby-token'] === token,
    librariesPath: '/Library/SelectableMediaFolders',
    libraries: opts.libraries ?? ownFixture('emby/library-selectablemediafolders.json'),
    updatedStatus: 200,
  });
}
