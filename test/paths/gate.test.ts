// The path gate, rule by rule: what passes (and how "." and ".." come back resolved) and what is refused, by name.
import { describe, expect, it } from 'vitest';
import { describeRefusal, gatePath, gateRequests, MAX_PATH_BYTES, PathRefused, preview, type GateRule } from '../../src/paths/gate.js';

const mappings = {
  '/data/TV/': ['/tv/', '/mnt/unionfs/Media/TV/'],
  '/data/Movies/': ['D:\\Media\\Movies\\', 'My Drive/Media/Movies/'],
  '/data/NAS/': ['\\\\nas\\media\\'],
};

const passes = (path: string) => {
  const v = gatePath(path, mappings);
  if (!v.ok) throw new Error(`${JSON.stringify(path)} refused: ${v.rule}`);
  return v.path;
};
const rule = (path: string): GateRule | 'ok' => {
  const v = gatePath(path, mappings);
  return v.ok ? 'ok' : v.rule;
};

describe('the path gate', () => {
  it('keeps clean absolute POSIX and Windows drive paths exactly as sent', () => {
    for (const p of ['/tv/Show/Season 01/e.mkv', '/elsewhere/x.mkv', 'D:\\Media\\Movies\\Heat (1995)\\Heat.mkv', 'E:/films/a.mkv', '/', 'C:\\', '/tv/Show/', '/tv/Sh..ow/a..b.mkv', '/tv/.hidden/x', '/tv/Show/Season 01/e.mkv '])
      expect(passes(p)).toBe(p);
  });

  it('resolves "." and ".." that stay inside the prefix they started in', () => {
    expect(passes('/tv/Show/../Other/./e.mkv')).toBe('/tv/Other/e.mkv');
    expect(passes('/tv/Show/Season 01/..')).toBe('/tv/Show');
    expect(passes('/tv/Show/Season 01/../')).toBe('/tv/Show/');
    expect(passes('/tv/Show/..')).toBe('/tv/');
    expect(passes('/tv//Show//e.mkv')).toBe('/tv/Show/e.mkv');
    expect(passes('D:\\Media\\Movies\\A\\..\\B\\b.mkv')).toBe('D:\\Media\\Movies\\B\\b.mkv');
    expect(passes('/elsewhere/a/../b')).toBe('/elsewhere/b');
  });

  it('escapes-prefix: ".." may not climb out of the mapped prefix (the Sonarr series.path of the finding)', () => {
    expect(rule('/tv/../../../etc')).toBe('escapes-prefix');
    expect(rule('/mnt/unionfs/Media/TV/Show/../../Movies/x.mkv')).toBe('escapes-prefix');
    expect(rule('/tv/Show/../../x')).toBe('escapes-prefix');
    expect(rule('D:\\Media\\Movies\\..\\..\\Windows\\System32')).toBe('escapes-prefix');
    expect(rule('My Drive/Media/Movies/../../../x')).toBe('escapes-prefix');
    // Backslashes separate too: a Windows server would read them so.
    expect(rule('/tv/Show\\..\\..\\..\\etc')).toBe('escapes-prefix');
    // An unmapped path is held inside its root.
    expect(rule('/../etc/passwd')).toBe('escapes-prefix');
    expect(rule('/a/../../etc')).toBe('escapes-prefix');
    expect(rule('C:\\..\\x')).toBe('escapes-prefix');
  });

  it('escapes-prefix: a file must be named inside its mapped prefix, or the folder scanned for it (its parent) lies above', () => {
    expect(gatePath('/tv/', mappings, { file: true }).ok).toBe(false);
    expect(gatePath('/tv', mappings, { file: true }).ok).toBe(false);
    expect(gatePath('/tv/Show/..', mappings, { file: true }).ok).toBe(false);
    expect(gatePath('/tv/e.mkv', mappings, { file: true }).ok).toBe(true);
    expect(gatePath('/tv/', mappings).ok).toBe(true);
  });

  it('dot-name: names of only dots and spaces, which Windows may read as ".."', () => {
    for (const p of ['/tv/.../x', '/tv/.. /x', '/tv/. ./x', '/tv/ /x', 'D:\\Media\\Movies\\...\\x']) expect(rule(p), p).toBe('dot-name');
  });

  it('not-absolute: relative paths, bare names and drive-relative paths, unless a mapping form names them', () => {
    for (const p of ['tv/Show/e.mkv', 'e.mkv', './x', '../x', '', ' /tv/x', 'D:x', 'D:', '~/x']) expect(rule(p), p).toBe('not-absolute');
    expect(passes('My Drive/Media/Movies/A/a.mkv')).toBe('My Drive/Media/Movies/A/a.mkv');
  });

  it('unc-unmapped: UNC paths only when a mapping names their share', () => {
    expect(rule('\\\\evil\\share\\x.mkv')).toBe('unc-unmapped');
    expect(rule('//evil/share/x.mkv')).toBe('unc-unmapped');
    expect(passes('\\\\nas\\media\\Show\\e.mkv')).toBe('\\\\nas\\media\\Show\\e.mkv');
    expect(passes('\\\\NAS\\Media\\Show\\e.mkv')).toBe('\\\\NAS\\Media\\Show\\e.mkv');
    expect(rule('\\\\nas\\media\\..\\admin$\\x')).toBe('escapes-prefix');
  });

  it('control-character: NUL, other C0/C1 controls and DEL', () => {
    for (const c of ['\0', '\n', '\r', '\t', '\x1b', '\x7f', '\x85', '\x9f']) expect(rule(`/tv/a${c}b.mkv`), JSON.stringify(c)).toBe('control-character');
  });

  it('invalid-unicode: lone surrogates (they cannot be URL-encoded for a media server); pairs are fine', () => {
    expect(rule('/tv/\ud800.mkv')).toBe('invalid-unicode');
    expect(rule('/tv/\udc00x.mkv')).toBe('invalid-unicode');
    expect(passes('/tv/🎬 Film/é.mkv')).toBe('/tv/🎬 Film/é.mkv');
  });

  it(`too-long: more than ${MAX_PATH_BYTES} bytes of UTF-8, counted in bytes not characters`, () => {
    const at = '/tv/' + 'a'.repeat(MAX_PATH_BYTES - 4);
    expect(Buffer.byteLength(at)).toBe(MAX_PATH_BYTES);
    expect(rule(at)).toBe('ok');
    expect(rule(at + 'a')).toBe('too-long');
    expect(rule('/tv/' + 'é'.repeat(2047))).toBe('too-long'); // 4 + 4094 bytes
    expect(rule('/tv/' + 'x'.repeat(5 * 1024 * 1024))).toBe('too-long');
  });

  it('the refusal names the rule, explains it, and shows at most the start of the path with controls escaped', () => {
    const long = '/tv/' + 'y'.repeat(5 * 1024 * 1024);
    const v = gatePath(long, mappings);
    expect(v.ok).toBe(false);
    const line = describeRefusal(long, v as { rule: GateRule; reason: string });
    expect(line).toMatch(/\(too-long\): it is longer than 4096 bytes/);
    expect(line.length).toBeLessThan(400);
    expect(preview('/tv/a\0b')).toBe('/tv/a\\u0000b');
  });

  it('gateRequests splits passed (resolved) from refused; PathRefused says the first rule and how many more', () => {
    const { passed, refused } = gateRequests(
      [
        { path: '/tv/A/../B/e.mkv', source: 'sonarr', event: 'Download', kind: 'file' },
        { path: '/tv/../../etc', source: 'sonarr', event: 'Download', kind: 'folder' },
        { path: 'relative', source: 'sonarr', event: 'Download', kind: 'file' },
      ],
      mappings,
    );
    expect(passed).toEqual([{ path: '/tv/B/e.mkv', source: 'sonarr', event: 'Download', kind: 'file' }]);
    expect(refused.map((r) => r.rule)).toEqual(['escapes-prefix', 'not-absolute']);
    const err = new PathRefused(refused);
    expect(err.rule).toBe('escapes-prefix');
    expect(err.message).toMatch(/escapes-prefix.*\(and 1 more refused path\(s\)\)/);
  });
});
