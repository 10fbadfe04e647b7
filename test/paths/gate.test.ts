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

  it('control-character: the refusal names the code point the sender cannot see', () => {
    const v = gatePath('/tv/a\0b.mkv', mappings);
    expect(!v.ok && v.reason).toMatch(/control character.*: U\+0000 NUL$/);
  });

  // Escapes only: this file holds no invisible character itself.
  it('invisible-character: format characters (bidi overrides, zero-width ones, BOM, soft hyphen, tags) and line separators', () => {
    const invisible = ['\u202e', '\u202a', '\u202b', '\u202c', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c', '\u200b', '\u2060', '\u2061', '\u2064', '\ufeff', '\u00ad', '\u180e', '\u2028', '\u2029', '\u3164', '\u{e0041}', '\u{e007f}'];
    for (const c of invisible) expect(rule(`/tv/Show/a${c}b.mkv`), c.codePointAt(0)!.toString(16)).toBe('invisible-character');
    // The finding: a right-to-left override makes "Show\u202evkm.exe" read "Showexe.mkv".
    const v = gatePath('/tv/Show/Show\u202evkm.exe', mappings);
    expect(v).toMatchObject({ ok: false, rule: 'invisible-character' });
    expect(!v.ok && v.reason).toMatch(/: U\+202E RIGHT-TO-LEFT OVERRIDE$/);
    // Joiners where they are no part of the text: between Latin letters, dangling after an emoji, alone.
    for (const p of ['/tv/Sh\u200dow/e.mkv', '/tv/Sh\u200cow/e.mkv', '/tv/Show\u200c/e.mkv', '/tv/\u200c\u0628/e.mkv', '/tv/\u{1f469}\u200d/e.mkv', '/tv/\u200d\u{1f4bb}/e.mkv', '/tv/a\u200d\u{1f4bb}/e.mkv', '/tv/\u{1f3f4}\u{e0067}\u{e0062}/e.mkv'])
      expect(rule(p), preview(p)).toBe('invisible-character');
  });

  it('invisible-character spares what file names really hold: emoji sequences, joiners inside Persian and Indic words, flags', () => {
    const names = [
      '\u{1f469}\u200d\u{1f4bb} Coders', // woman technologist: ZWJ between pictographs
      '\u{1f469}\u{1f3fd}\u200d\u{1f4bb}', // with a skin tone before the ZWJ
      '\u{1f3f3}\ufe0f\u200d\u{1f308} Pride', // rainbow flag: VS16 before the ZWJ
      '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}', // family: two joiners
      '\u{1f3c3}\u200d\u2640\ufe0f', // woman running
      '\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f} England', // subdivision flag (tags)
      '\u{1f1eb}\u{1f1f7} France', // regional indicators are letters, not format characters
      '\u2764\ufe0f Love', // VS16 is a mark
      '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645', // Persian: ZWNJ after a prefix
      '\u0915\u094d\u200d\u0937', // Devanagari: ZWJ after a virama (half form)
      '\u0915\u094d\u200c\u0937', // Devanagari: ZWNJ (conjunct kept apart)
      '\u0d28\u0d4d\u200d', // Malayalam's older chillu spelling: ZWJ at the end of a word
      '\u05e9\u05dc\u05d5\u05dd', // Hebrew (right-to-left text needs no control)
      '\u0627\u0644\u0639\u0631\u0628\u064a\u0629', // Arabic
      'Ame\u0301lie', // a combining accent
      '\u5343\u3068\u5343\u5c0b\u306e\u795e\u96a0\u3057', // Japanese
      '\u845b\u{e0100}', // an ideographic variation sequence (a mark)
      'Le\u00a0Film', // a no-break space
      '\u0e20\u0e32\u0e1e\u0e22\u0e19\u0e15\u0e23\u0e4c', // Thai
    ];
    const refused = names.filter((n) => rule(`/tv/${n}/e.mkv`) !== 'ok' || rule(`/tv/${n}.mkv`) !== 'ok');
    expect(refused.map(preview)).toEqual([]);
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

  it('the start of a long path ends on a character: an emoji at the cut is not shown as half of itself', () => {
    const path = `/tv/${'a'.repeat(115)}😀${'b'.repeat(10)}`;
    // preview() shows a lone surrogate as an escape: half an emoji would read '\ud83d', and no text holds that.
    expect(preview(path)).toBe(`/tv/${'a'.repeat(115)}… (133 bytes)`);
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
