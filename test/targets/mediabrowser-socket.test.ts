// The Jellyfin/Emby websocket client (src/targets/mediabrowser/socket.ts): the messages pinned in
// test/fixtures/jellyfin/websocket, KeepAlive answers, and, against the fake over real sockets, the header
// authentication, Emby's URL, and LibraryChanged reaching a user's socket but not an API key's.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ConnectionEvent } from '../../src/http/media-socket.js';
import { MediaBrowserSocket, parseEnvelope, parseLibraryChanged, socketAddress, type LibraryChangedEvent } from '../../src/targets/mediabrowser/socket.js';
import { FakeMediaBrowserSocket } from '../fakes/mediabrowser-socket.js';
import { ownFixtureText } from '../support/fixtures.js';
import { scriptedDial, SteppedClock } from '../support/fake-socket.js';

const message = (name: string) => ownFixtureText(`jellyfin/websocket/${name}.json`);

describe('messages', () => {
  it('reads LibraryChanged, every list', () => {
    expect(parseLibraryChanged(message('library-changed'))).toEqual({
      kind: 'library-changed',
      added: ['0f3e2d1c4b5a49687f6e5d4c3b2a1908', '1a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6'],
      updated: ['b7e3c1d24f5a4e6b8c9d0e1f2a3b4c5d'],
      removed: ['9e8d7c6b5a4f43e2d1c0b9a8f7e6d5c4'],
      foldersAddedTo: ['b7e3c1d24f5a4e6b8c9d0e1f2a3b4c5d'],
      foldersRemovedFrom: [],
      collectionFolders: ['f0e1d2c3b4a5468798a9b0c1d2e3f4a5'],
    });
    expect(parseLibraryChanged(message('keep-alive'))).toBeUndefined();
    expect(parseEnvelope(message('force-keep-alive'))).toEqual({ type: 'ForceKeepAlive', data: 60 });
    expect(parseEnvelope('junk')).toBeUndefined();
  });

  it('addresses Jellyfin with the Authorization header and Emby at /embywebsocket', () => {
    const j = socketAddress({ kind: 'jellyfin', url: 'https://jf.example/base/', token: 'abc', deviceId: 'dev-1', version: '0.1.0' });
    expect(j.url).toBe('wss://jf.example/base/socket');
    expect(j.headers.Authorization).toBe('MediaBrowser Client="scanrelay", Device="scanrelay", DeviceId="dev-1", Version="0.1.0", Token="abc"');
    const e = socketAddress({ kind: 'emby', url: 'http://emby.example:8096', token: 'abc', deviceId: 'dev-1', version: '0.1.0' });
    expect(e.url).toBe('ws://emby.example:8096/embywebsocket?api_key=abc&deviceId=dev-1');
  });
});

describe('KeepAlive', () => {
  it('answers ForceKeepAlive at once, then every half of its timeout while the socket is open', async () => {
    const clock = new SteppedClock();
    const { dial, sockets } = scriptedDial();
    const s = new MediaBrowserSocket({ kind: 'jellyfin', url: 'http://jf', token: 't', deviceId: 'd', version: 'v', clock, dial });
    s.start();
    sockets[0].open();
    sockets[0].text(message('force-keep-alive'));
    expect(sockets[0].sent).toEqual(['{"MessageType":"KeepAlive"}']);
    const keepAliveSleep = () => clock.sleeps.find((x) => x.ms === 30_000);
    expect(keepAliveSleep()).toBeDefined();
    await clock.release(30_000); // the KeepAlive loop's sleep (the liveness check's own sleeps wait on)
    expect(sockets[0].sent).toHaveLength(2);
    sockets[0].text(message('force-keep-alive')); // a second ForceKeepAlive starts no second loop
    expect(clock.sleeps.filter((x) => x.ms === 30_000)).toHaveLength(1);
    sockets[0].close();
    await clock.release();
    expect(sockets[0].sent).toHaveLength(3); // the loop ended with its socket
    await s.stop();
  });
});

describe('against the fake server', () => {
  let server: FakeMediaBrowserSocket | undefined;
  let client: MediaBrowserSocket | undefined;
  afterEach(async () => {
    await client?.stop();
    await server?.stop();
    client = server = undefined;
  });

  const connect = async (kind: 'jellyfin' | 'emby', token: string) => {
    client = new MediaBrowserSocket({ kind, url: server!.url, token, deviceId: 'scanrelay-test', version: '0.1.0', clock: systemClock, firstBackoffMs: 5, maxBackoffMs: 20 });
    const events: (LibraryChangedEvent | ConnectionEvent)[] = [];
    const opened = new Promise<void>((resolve) => client!.subscribe((e) => (events.push(e), e.kind === 'connection' && e.connected && resolve())));
    client.start();
    await opened;
    return events;
  };
  const nextChange = () => new Promise<LibraryChangedEvent | ConnectionEvent>((resolve) => client!.subscribe((e) => e.kind === 'library-changed' && resolve(e)));

  it("Jellyfin: a user's token by header gets LibraryChanged and its KeepAlive answered", async () => {
    server = await new FakeMediaBrowserSocket('jellyfin', { 'user-token': 'u1' }).start();
    await connect('jellyfin', 'user-token');
    expect(server.sessions[0].via).toBe('header');
    const changed = nextChange();
    expect(server.libraryChanged({ ItemsAdded: ['aa11'], FoldersAddedTo: ['ff00'] })).toBe(1);
    expect(await changed).toMatchObject({ added: ['aa11'], foldersAddedTo: ['ff00'] });
    await server.receivedOne('KeepAlive'); // the answer to the ForceKeepAlive sent on connect
  });

  it('Jellyfin: an API key opens the socket, but its session has no user and gets no LibraryChanged', async () => {
    server = await new FakeMediaBrowserSocket('jellyfin', { 'api-key': null }).start();
    await connect('jellyfin', 'api-key');
    expect(client!.connected).toBe(true);
    expect(server.libraryChanged({ ItemsAdded: ['aa11'] })).toBe(0);
  });

  it('Emby: /embywebsocket with api_key and deviceId; a wrong token is refused and the client keeps trying', async () => {
    server = await new FakeMediaBrowserSocket('emby', { 'emby-user': 'u2' }).start();
    await connect('emby', 'emby-user');
    expect(server.sessions[0]).toMatchObject({ path: '/embywebsocket', via: 'query' });
    const changed = nextChange();
    server.libraryChanged({ ItemsRemoved: ['bb22'] });
    expect(await changed).toMatchObject({ removed: ['bb22'] });
    await client!.stop();
    client = new MediaBrowserSocket({ kind: 'emby', url: server.url, token: 'nope', deviceId: 'x', version: 'v', clock: systemClock, firstBackoffMs: 5, maxBackoffMs: 20 });
    const twice = new Promise<string[]>((resolve) => {
      const whys: string[] = [];
      client!.subscribe((e) => e.kind === 'connection' && !e.connected && whys.push(e.why ?? '') === 2 && resolve(whys));
    });
    client.start();
    expect(await twice).toEqual([expect.stringMatching(/HTTP 401/), expect.stringMatching(/HTTP 401/)]);
  });
});
