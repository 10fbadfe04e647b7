// GOOGLE.ALLOWED rules for single files.
import { describe, expect, it } from 'vitest';
import { checkAllowed } from '../../src/drive/filters.js';
import type { GoogleAllowed } from '../../src/drive/settings.js';

const allowed: GoogleAllowed = {
  FILE_PATHS: ['My Drive/Media/TV/', 'Media/Movies'],
  FILE_EXTENSIONS: true,
  FILE_EXTENSIONS_LIST: ['mkv', 'ts', '.mp4'],
  MIME_TYPES: true,
  MIME_TYPES_LIST: ['video'],
};
const v = (path: string | null, mimeType = 'video/x-matroska', a = allowed) => checkAllowed({ path, mimeType }, a);

describe('GOOGLE.ALLOWED filters', () => {
  it('watches FILE_PATHS prefixes case-insensitively, at folder boundaries', () => {
    expect(v('My Drive/Media/TV/Show/e.mkv')).toEqual({ ok: true });
    expect(v('my drive/media/tv/Show/e.mkv')).toEqual({ ok: true });
    expect(v('Media/Movies/Film (2020)/f.mkv')).toEqual({ ok: true });
    expect(v('Media/Movies2/f.mkv')).toEqual({ ok: false, reason: 'path' });
    expect(v('My Drive/Downloads/e.mkv')).toEqual({ ok: false, reason: 'path' });
    expect(v(null)).toEqual({ ok: false, reason: 'no-path' });
    expect(v('My Drive/Media/TV/e.mkv', 'video/x-matroska', { ...allowed, FILE_PATHS: [] })).toEqual({ ok: false, reason: 'path' });
  });

  it('checks extensions after a dot, any case, with or without a dot in the list', () => {
    expect(v('Media/Movies/a.MKV')).toEqual({ ok: true });
    expect(v('Media/Movies/a.mp4', 'video/mp4')).toEqual({ ok: true });
    expect(v('Media/Movies/a.ts', 'video/mp2t')).toEqual({ ok: true });
    expect(v('Media/Movies/parts', 'video/mp2t')).toEqual({ ok: false, reason: 'extension' });
    expect(v('Media/Movies/a.nfo', 'text/plain', { ...allowed, FILE_EXTENSIONS: false, MIME_TYPES: false })).toEqual({ ok: true });
  });

  it('checks MIME substrings, refuses .sub "videos" and skips folders', () => {
    expect(v('Media/Movies/a.mkv', 'application/octet-stream')).toEqual({ ok: false, reason: 'mime' });
    expect(v('Media/Movies/a.mkv', 'application/octet-stream', { ...allowed, MIME_TYPES: false })).toEqual({ ok: true });
    expect(v('Media/Movies/a.sub', 'video/MP2G', { ...allowed, FILE_EXTENSIONS: false })).toEqual({ ok: false, reason: 'mime' });
    expect(v('Media/Movies/Film', 'application/vnd.google-apps.folder')).toEqual({ ok: false, reason: 'folder' });
  });
});
