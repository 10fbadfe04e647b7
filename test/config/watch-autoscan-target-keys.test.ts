// The keys of WATCH, AUTOSCAN and the TARGETS types beyond Plex, Jellyfin and Emby: what loads, and the one-line answer to what does not.
import { afterAll, describe, expect, it } from 'vitest';
import { configFiles } from '../support/config-file.js';

const files = configFiles('scanrelay-entry-keys-');
afterAll(() => files.cleanup());

describe('TARGETS types beyond Plex, Jellyfin and Emby', () => {
  it.each([
    [{ NAME: 'c', TYPE: 'command' }, 'TARGETS[0].COMMAND: expected the program to run and its arguments'],
    [{ NAME: 't', TYPE: 'tdarr', URL: 'http://tdarr:8265' }, "TARGETS[0].LIBRARY_ID: expected the Tdarr library's id (dbID)"],
    [{ NAME: 's', TYPE: 'sonarr', URL: 'http://sonarr:8989' }, 'TARGETS[0].TOKEN: expected the sonarr API token'],
    [{ NAME: 'a', TYPE: 'audiobookshelf', TOKEN: 'x' }, 'TARGETS[0].URL: expected an http:// or https:// URL for a audiobookshelf target'],
    [{ NAME: 'r', TYPE: 'relay', URL: 'http://other:3468', USER: 'u' }, 'TARGETS[0].PASSWORD: expected both USER and PASSWORD (Basic auth), or neither'],
    [{ NAME: 'c', TYPE: 'command', COMMAND: ['/bin/true'], TIMEOUT: 0 }, 'TARGETS[0].TIMEOUT: expected a number of seconds greater than 0'],
  ])('refuse %j', (entry, message) => {
    expect(files.problem({ TARGETS: [entry] })).toContain(message);
  });

  it('loads each with only its required keys; a relay and Tdarr need no token', () => {
    const c = files.load({
      TARGETS: [
        { NAME: 'c', TYPE: 'command', COMMAND: '/usr/local/bin/notify' },
        { NAME: 't', TYPE: 'tdarr', URL: 'http://tdarr:8265', LIBRARY_ID: 'L1' },
        { NAME: 'r', TYPE: 'relay', URL: 'http://other:3468' },
        { NAME: 'x', TYPE: 'RADARR', URL: 'http://radarr:7878', TOKEN: 'k', REFRESH_ITEMS: true },
      ],
    });
    expect(c.TARGETS.map((t) => t.TYPE)).toEqual(['command', 'tdarr', 'relay', 'radarr']);
    expect(c.TARGETS[0].COMMAND).toEqual(['/usr/local/bin/notify']);
    expect(c.PLEX_REFRESH_ITEMS).toBe(false);
  });
});

describe('WATCH', () => {
  it('defaults to nothing watched, 5 s of quiet, a poll a minute', () => {
    expect(files.load({}).WATCH).toEqual({ PATHS: [], DEBOUNCE: 5, POLL_INTERVAL: 60 });
    expect(files.load({ WATCH: { PATHS: [{ PATH: '/mnt/local', BACKEND: 'POLL' }] } }).WATCH.PATHS[0]).toEqual({
      PATH: '/mnt/local',
      INCLUDE: [],
      EXCLUDE: [],
      RECURSIVE: true,
      BACKEND: 'poll',
      REWRITE: {},
    });
  });

  it.each([
    [{ PATHS: [{ PATH: 'media' }] }, 'WATCH.PATHS[0].PATH: expected an absolute folder path'],
    [{ PATHS: [{ PATH: '/m', EXCLUDE: ['(unclosed'] }] }, 'WATCH.PATHS[0].EXCLUDE[0]: expected a valid regular expression'],
    [{ PATHS: [{ PATH: '/m', BACKEND: 'fanotify' }] }, 'WATCH.PATHS[0].BACKEND: expected one of "inotify", "poll"'],
    [{ POLL_INTERVAL: 0 }, 'WATCH.POLL_INTERVAL: expected a number of seconds greater than 0'],
  ])('refuse %j', (watch, message) => {
    expect(files.problem({ WATCH: watch })).toContain(message);
  });
});

describe('AUTOSCAN', () => {
  it('route names are unique and not the fixed routes', () => {
    const base = { ENABLED: true, USER: 'u', PASSWORD: 'p' };
    expect(files.problem({ AUTOSCAN: { ...base, TRIGGERS: [{ NAME: 'manual', TYPE: 'sonarr' }] } })).toContain('AUTOSCAN.TRIGGERS[0].NAME');
    expect(files.problem({ AUTOSCAN: { ...base, TRIGGERS: [{ NAME: 'a', TYPE: 'sonarr' }, { NAME: 'A', TYPE: 'radarr' }] } })).toContain('AUTOSCAN.TRIGGERS[1].NAME');
    expect(files.problem({ AUTOSCAN: { ...base, TRIGGERS: [{ NAME: 'a', TYPE: 'whisparr' }] } })).toContain('AUTOSCAN.TRIGGERS[0].TYPE');
    expect(files.problem({ AUTOSCAN: { ...base, USER: 'a:b' } })).toContain('AUTOSCAN.USER: expected a user name without ":"');
  });
});
