// The walk's view of a parsed TOML or JSON file (foreign-limits.ts), with the line of a refused key or depth read
// from the text: smol-toml and JSON.parse give back values without positions. The value decides what is refused;
// the text only says where, so a misreading here costs a line number, never a wrong answer. Also the lines of
// config.json's top-level keys, which JSON.parse folds into one when a key is written twice.
import { lineAt, MAX_DEPTH, type Tree } from './foreign-limits.js';

export type KeyedFormat = 'toml' | 'json';

/** A parsed TOML or JSON value as the walk sees it: objects' keys and arrays' items, lines found in `text`. */
export function valueTree(text: string, format: KeyedFormat): Tree<unknown> {
  return {
    entries: (value) => {
      if (Array.isArray(value)) return value.map((node) => ({ node }));
      if (typeof value !== 'object' || value === null) return undefined;
      return Object.keys(value).map((key) => ({ key, node: (value as Record<string, unknown>)[key] }));
    },
    lineOf: ({ kind, key }) => {
      const offset = scan(text, format, kind === 'key' ? (_, name) => name === key : (depth) => depth > MAX_DEPTH);
      return offset === undefined ? undefined : lineAt(text, offset);
    },
  };
}

/** Each top-level key of a JSON object's text with the lines it is written on, in the order first written. */
export function topLevelKeyLines(text: string): Map<string, number[]> {
  const lines = new Map<string, number[]>();
  scan(text, 'json', (depth, key, at) => {
    if (depth === 1 && key !== undefined) lines.set(key, [...(lines.get(key) ?? []), lineAt(text, at)]);
    return false;
  });
  return lines;
}

const BARE_KEY = /[A-Za-z0-9_-]/;

/**
 * The offset of the first key or opening bracket for which `wanted(depth, key)` holds. Depth counts as the walk
 * does: a top-level key is 1, each further key part, table, array item or inline-table key one more. TOML's
 * `[a.b]` puts the keys after it at 3, `[[a.b]]` at 4 (the array's entry is a level).
 */
function scan(text: string, format: KeyedFormat, wanted: (depth: number, key: string | undefined, at: number) => boolean): number | undefined {
  const toml = format === 'toml';
  const open: { depth: number; list: boolean }[] = [];
  let table = 0; // TOML: the depth of the table the current [header] opened
  let atKey = toml; // reading a key: a TOML line's start, or after { or , in an inline table or object
  let parts = 0; // the parts of that key read so far
  let depth = 0; // the depth of the next value
  const keyBase = () => (open.length > 0 ? open[open.length - 1].depth : table);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (toml && c === '#') {
      const end = text.indexOf('\n', i);
      i = (end === -1 ? text.length : end) - 1;
    } else if (c === '\n') {
      if (toml && open.length === 0) [atKey, parts] = [true, 0];
    } else if (c === '"' || (toml && c === "'")) {
      const end = stringEnd(text, i, toml);
      if (atKey && wanted(keyBase() + ++parts, keyName(text.slice(i, end)), i)) return i;
      i = end - 1;
    } else if (atKey && toml && c === '[' && open.length === 0 && parts === 0) {
      // A [table] or [[array of tables]] header: its parts count from the top.
      const many = text[i + 1] === '[';
      const start = i;
      const [names, end] = headerKeys(text, i + (many ? 2 : 1));
      for (let p = 0; p < names.length; p++) if (wanted(p + 1, names[p], start)) return start;
      table = names.length + (many ? 1 : 0);
      if (many && wanted(table, undefined, start)) return start;
      [atKey, i] = [false, end - 1];
    } else if (atKey && toml && BARE_KEY.test(c)) {
      let end = i;
      while (end < text.length && BARE_KEY.test(text[end])) end++;
      if (wanted(keyBase() + ++parts, text.slice(i, end), i)) return i;
      i = end - 1;
    } else if (atKey && c === (toml ? '=' : ':')) {
      [atKey, depth] = [false, keyBase() + parts];
    } else if (c === '[' || c === '{') {
      if (wanted(depth, undefined, i)) return i;
      open.push({ depth, list: c === '[' });
      if (c === '[') depth++;
      else [atKey, parts] = [true, 0];
    } else if (c === ']' || c === '}') {
      open.pop();
      atKey = false;
      if (open.length > 0 && open[open.length - 1].list) depth = open[open.length - 1].depth + 1;
    } else if (c === ',' && open.length > 0) {
      const top = open[open.length - 1];
      if (top.list) depth = top.depth + 1;
      else [atKey, parts] = [true, 0];
    }
  }
  return undefined;
}

/** The parts of a TOML header from `from` (after its [ or [[), and the offset after its closing bracket. */
function headerKeys(text: string, from: number): [string[], number] {
  const names: string[] = [];
  let i = from;
  while (i < text.length && text[i] !== ']' && text[i] !== '\n') {
    const c = text[i];
    if (c === '"' || c === "'") {
      const end = stringEnd(text, i, true);
      names.push(keyName(text.slice(i, end)));
      i = end;
    } else if (BARE_KEY.test(c)) {
      const start = i;
      while (i < text.length && BARE_KEY.test(text[i])) i++;
      names.push(text.slice(start, i));
    } else i++;
  }
  while (text[i] === ']') i++;
  return [names, i];
}

/** The offset after the string starting at `from`: "…" with escapes; in TOML also '…', """…""" and '''…'''. */
function stringEnd(text: string, from: number, toml: boolean): number {
  const q = text[from];
  const triple = toml && text.startsWith(q.repeat(3), from);
  let i = from + (triple ? 3 : 1);
  while (i < text.length) {
    if (q === '"' && text[i] === '\\') i += 2;
    else if (!triple && text[i] === '\n') return i;
    else if (triple && text.startsWith(q.repeat(3), i)) {
      // Up to two more quotes right before the closing three belong to the string.
      let end = i + 3;
      while (end < i + 5 && text[end] === q) end++;
      return end;
    } else if (!triple && text[i] === q) return i + 1;
    else i++;
  }
  return text.length;
}

/** A quoted key's name: escapes read as JSON reads them (TOML's are the same but for \U and \e). */
function keyName(quoted: string): string {
  const inner = quoted.slice(1, quoted.length > 1 && quoted.endsWith(quoted[0]) ? -1 : undefined);
  if (quoted[0] !== '"') return inner;
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    return inner;
  }
}
