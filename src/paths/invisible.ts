// The invisible characters a requested path may not hold (docs/security.md, the path gate): Unicode's format
// characters (category Cf: bidi overrides and isolates, zero-width spaces, joiners, the soft hyphen, the BOM,
// tags), the line and paragraph separators and the Hangul fillers. Each draws nothing, so two paths that differ
// only by one look the same in the log, the dashboard and the media server, and a right-to-left override makes a
// name read backwards ("Show\u202Evkm.exe" shows as "Showexe.mkv"). Joiners stay where they are part of the text:
// inside an emoji sequence, and between letters of the scripts that write with them.
const INVISIBLE = /[\p{Cf}\u2028\u2029\u115f\u1160\u3164\uffa0]/u;

/**
 * An emoji ZWJ sequence (woman + ZWJ + laptop; white flag + VS16 + ZWJ + rainbow; with a skin tone): ZWJ between two
 * pictographs, the first perhaps followed by VS16 or a skin tone.
 */
const EMOJI_JOINER = /(?<=\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u200D(?=\p{Extended_Pictographic})/gu;

/**
 * ZWNJ and ZWJ after a letter (or mark, such as a virama) of the scripts whose spelling uses them, inside a word or
 * at its end: Persian and Arabic (a prefix kept unjoined from its word), Syriac, and the Indic scripts (a half form,
 * a conjunct kept apart, Malayalam's older chillu letters at the end of a word). There they change the letters'
 * shapes, so they are not invisible.
 */
const JOINING = '[\\p{sc=Arabic}\\p{sc=Syriac}\\p{sc=Devanagari}\\p{sc=Bengali}\\p{sc=Gurmukhi}\\p{sc=Gujarati}\\p{sc=Oriya}\\p{sc=Tamil}\\p{sc=Telugu}\\p{sc=Kannada}\\p{sc=Malayalam}\\p{sc=Sinhala}]';
const WORD_JOINER = new RegExp(`(?<=${JOINING})[\\u200C\\u200D](?=${JOINING}|[\\s./\\\\_-]|$)`, 'gu');

/** A subdivision flag (England's: U+1F3F4, the tag letters g b e n g, U+E007F CANCEL TAG). */
const FLAG_TAGS = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu;

/** The first invisible character of `path` that is not part of its text, or undefined. */
export function invisibleIn(path: string): string | undefined {
  if (!INVISIBLE.test(path)) return undefined;
  const text = path.replace(FLAG_TAGS, '\u{1F3F4}').replace(EMOJI_JOINER, '').replace(WORD_JOINER, '');
  return INVISIBLE.exec(text)?.[0];
}

/** Every invisible character, for escaping them in what is shown of a refused path. */
export const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');

const NAMES: Record<number, string> = {
  0x00: 'NUL',
  0xad: 'SOFT HYPHEN',
  0x061c: 'ARABIC LETTER MARK',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE (BOM)',
};

/** `U+202E RIGHT-TO-LEFT OVERRIDE`, or `U+E0041` for one without a name here. */
export function codePointName(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return NAMES[cp] ? `${hex} ${NAMES[cp]}` : hex;
}
