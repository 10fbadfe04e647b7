// Reads the TOML that autopulse's config.toml is written in (TOML 1.0 without dates): tables, arrays of tables,
// dotted and quoted keys, the four kinds of string, numbers, booleans, arrays and inline tables. Anything else,
// or anything TOML forbids (a key or table defined twice), is refused with its line, never guessed at.

export class TomlError extends Error {
  constructor(message: string, readonly line: number) {
    super(`line ${line}: ${message}`);
  }
}

type Table = Record<string, unknown>;

export function parseToml(source: string): Table {
  return new TomlReader(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source).document();
}

const BARE_KEY = /[A-Za-z0-9_-]/;
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

/** Plain objects whose keys come from the file: "__proto__" must be a key like any other, not the prototype. */
function put(table: Table, key: string, value: unknown) {
  Object.defineProperty(table, key, { value, enumerable: true, writable: true, configurable: true });
}
const has = (table: Table, key: string) => Object.prototype.hasOwnProperty.call(table, key);
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v);

class TomlReader {
  private at = 0;
  private line = 1;
  private readonly root: Table = {};
  /** Tables a [header] defined, and those only a dotted key made (which a later [header] may not define). */
  private readonly headed = new Set<Table>();
  private readonly dotted = new Set<Table>();
  /** Inline tables and arrays written as values: closed to later keys and headers. */
  private readonly sealed = new Set<unknown>();

  constructor(private readonly text: string) {}

  document(): Table {
    let current = this.root;
    for (;;) {
      this.skipBlank();
      if (this.at >= this.text.length) return this.root;
      if (this.peek() === '[') current = this.header();
      else this.keyValue(current);
      this.endOfLine();
    }
  }

  private fail(message: string): never {
    throw new TomlError(message, this.line);
  }

  private peek(offset = 0): string {
    return this.text[this.at + offset] ?? '';
  }

  private next(): string {
    const c = this.text[this.at++] ?? '';
    if (c === '\n') this.line++;
    return c;
  }

  /** Spaces and tabs on this line. */
  private skipSpace() {
    while (this.peek() === ' ' || this.peek() === '\t') this.at++;
  }

  /** Whitespace, newlines and comments: between statements and inside arrays. */
  private skipBlank() {
    for (;;) {
      this.skipSpace();
      if (this.peek() === '#') this.skipComment();
      else if (this.peek() === '\n' || (this.peek() === '\r' && this.peek(1) === '\n')) {
        if (this.peek() === '\r') this.at++;
        this.next();
      } else return;
    }
  }

  private skipComment() {
    while (this.at < this.text.length && this.peek() !== '\n') this.at++;
  }

  private endOfLine() {
    this.skipSpace();
    if (this.peek() === '#') this.skipComment();
    if (this.peek() === '\r') this.at++;
    if (this.at < this.text.length && this.peek() !== '\n') this.fail(`expected the end of the line, got '${this.rest()}'`);
  }

  private rest(): string {
    const end = this.text.indexOf('\n', this.at);
    return this.text.slice(this.at, end < 0 ? undefined : end).trim().slice(0, 40);
  }

  /** `[a.b]` or `[[a.b]]`: the table the following keys go into. */
  private header(): Table {
    const many = this.peek(1) === '[';
    this.at += many ? 2 : 1;
    this.skipSpace();
    const path = this.keyPath();
    if (this.next() !== ']' || (many && this.next() !== ']')) this.fail(`a table header must end with ${many ? ']]' : ']'}`);
    const name = path.join('.');
    let table = this.root;
    path.slice(0, -1).forEach((key) => (table = this.descend(table, key, name)));
    const last = path[path.length - 1];
    const existing = has(table, last) ? table[last] : undefined;
    if (many) {
      if (existing !== undefined && (!Array.isArray(existing) || this.sealed.has(existing))) this.fail(`[[${name}]] names something that is not an array of tables`);
      const list = (existing as Table[] | undefined) ?? [];
      if (existing === undefined) put(table, last, list);
      const entry: Table = {};
      list.push(entry);
      this.headed.add(entry);
      return entry;
    }
    if (existing === undefined) {
      const entry: Table = {};
      put(table, last, entry);
      this.headed.add(entry);
      return entry;
    }
    if (!isTable(existing) || this.sealed.has(existing)) this.fail(`[${name}] names a key that already holds a value`);
    if (this.headed.has(existing) || this.dotted.has(existing)) this.fail(`table [${name}] is defined twice`);
    this.headed.add(existing);
    return existing;
  }

  /** The table under `key`, made if missing; the last entry of an array of tables. */
  private descend(table: Table, key: string, name: string): Table {
    if (!has(table, key)) {
      const made: Table = {};
      put(table, key, made);
      return made;
    }
    const value = table[key];
    if (Array.isArray(value) && !this.sealed.has(value)) return value[value.length - 1] as Table;
    if (!isTable(value) || this.sealed.has(value)) this.fail(`'${name}' goes through '${key}', which already holds a value`);
    return value;
  }

  private keyValue(table: Table) {
    const path = this.keyPath();
    if (this.next() !== '=') this.fail(`expected '=' after the key '${path.join('.')}'`);
    this.skipSpace();
    const value = this.value();
    let target = table;
    for (const key of path.slice(0, -1)) {
      target = this.descend(target, key, path.join('.'));
      if (this.headed.has(target) && target !== table) this.fail(`'${path.join('.')}' adds to table [${key}] defined elsewhere`);
      this.dotted.add(target);
    }
    const last = path[path.length - 1];
    if (has(target, last)) this.fail(`the key '${path.join('.')}' is defined twice`);
    put(target, last, value);
  }

  /** `a`, `"a b"`, `'a'`, `a.b."c"`; stops after trailing spaces. */
  private keyPath(): string[] {
    const keys: string[] = [];
    for (;;) {
      const c = this.peek();
      if (c === '"' || c === "'") {
        if (this.text.startsWith(c.repeat(3), this.at)) this.fail('a key may not be a multi-line string');
        keys.push(this.string());
      } else {
        const start = this.at;
        while (BARE_KEY.test(this.peek())) this.at++;
        if (this.at === start) this.fail(c === '' || c === '\n' ? 'expected a key' : `expected a key, got '${this.rest()}'`);
        keys.push(this.text.slice(start, this.at));
      }
      this.skipSpace();
      if (this.peek() !== '.') return keys;
      this.at++;
      this.skipSpace();
    }
  }

  private value(): unknown {
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    const m = /^[^\s,\]}#]+/.exec(this.text.slice(this.at));
    if (!m) this.fail(c === '' || c === '\n' || c === '\r' ? 'a key without a value' : `expected a value, got '${this.rest()}'`);
    const word = m[0];
    this.at += word.length;
    if (word === 'true') return true;
    if (word === 'false') return false;
    const number = tomlNumber(word);
    if (number !== undefined) return number;
    if (/^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}/.test(word)) this.fail(`dates and times ('${word}') are not used in autopulse configs; quote the value`);
    return this.fail(`'${word}' is not a TOML value (strings need quotes)`);
  }

  private array(): unknown[] {
    const startLine = this.line;
    this.at++;
    const out: unknown[] = [];
    this.sealed.add(out);
    for (;;) {
      this.skipBlank();
      if (this.peek() === ']') break;
      if (this.at >= this.text.length) throw new TomlError('an array that is never closed with ]', startLine);
      out.push(this.value());
      this.skipBlank();
      if (this.at >= this.text.length) throw new TomlError('an array that is never closed with ]', startLine);
      if (this.peek() === ',') this.at++;
      else if (this.peek() !== ']') this.fail(`expected ',' or ']' in an array, got '${this.rest()}'`);
    }
    this.at++;
    return out;
  }

  private inlineTable(): Table {
    this.at++;
    const out: Table = {};
    this.skipSpace();
    if (this.peek() === '}') {
      this.at++;
      this.sealed.add(out);
      return out;
    }
    for (;;) {
      this.skipSpace();
      this.keyValue(out);
      this.skipSpace();
      const c = this.next();
      if (c === '}') break;
      if (c !== ',') this.fail("an inline table continues with ',' or ends with '}' on the same line");
    }
    this.sealed.add(out);
    return out;
  }

  private string(): string {
    const q = this.peek();
    const multi = this.text.startsWith(q.repeat(3), this.at);
    this.at += multi ? 3 : 1;
    // A newline right after the opening quotes is not part of a multi-line string.
    if (multi && this.peek() === '\n') this.next();
    else if (multi && this.peek() === '\r' && this.peek(1) === '\n') (this.at++, this.next());
    let out = '';
    for (;;) {
      if (this.at >= this.text.length) this.fail('a string that is never closed');
      if (!multi && this.peek() === q) {
        this.at++;
        return out;
      }
      if (multi && this.text.startsWith(q.repeat(3), this.at)) {
        // Up to two quotes right before the closing three belong to the string ("""a"""" is 'a"').
        let run = 3;
        while (this.peek(run) === q) run++;
        if (run > 5) this.fail(`too many ${q} in a row at the end of a multi-line string`);
        this.at += run;
        return out + q.repeat(run - 3);
      }
      const c = this.next();
      if (c === '\n' && !multi) this.fail('a string must end on its line (use """ for several lines)');
      if (c === '\\' && q === '"') out += this.escape(multi);
      else out += c;
    }
  }

  private escape(multi: boolean): string {
    const c = this.next();
    if (ESCAPES[c] !== undefined) return ESCAPES[c];
    if (c === 'u' || c === 'U') {
      const hex = this.text.slice(this.at, this.at + (c === 'u' ? 4 : 8));
      if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== (c === 'u' ? 4 : 8)) this.fail(`bad unicode escape \\${c}${hex}`);
      this.at += hex.length;
      const code = parseInt(hex, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail(`\\${c}${hex} is not a unicode scalar value`);
      return String.fromCodePoint(code);
    }
    // "Line ending backslash": in a multi-line string, a backslash at the end of a line eats the whitespace after it.
    if (multi && (c === ' ' || c === '\t' || c === '\n' || c === '\r')) {
      let sawNewline = c === '\n';
      while (/[ \t\r\n]/.test(this.peek())) if (this.next() === '\n') sawNewline = true;
      if (!sawNewline) this.fail('a backslash followed by spaces must end its line');
      return '';
    }
    return this.fail(`unknown escape \\${c} (write \\\\ for a backslash, or use a 'literal string' for regular expressions)`);
  }
}

/** A TOML integer or float, or undefined when `word` is neither. */
function tomlNumber(word: string): number | undefined {
  const plain = /^[+-]?(0|[1-9](_?\d)*)$/;
  if (plain.test(word)) return Number(word.replace(/_/g, ''));
  const radix = /^0(x[0-9A-Fa-f](_?[0-9A-Fa-f])*|o[0-7](_?[0-7])*|b[01](_?[01])*)$/.exec(word);
  if (radix) return Number(`0${radix[1][0]}${radix[1].slice(1).replace(/_/g, '')}`);
  if (/^[+-]?(0|[1-9](_?\d)*)(\.\d(_?\d)*)?([eE][+-]?\d(_?\d)*)?$/.test(word)) return Number(word.replace(/_/g, ''));
  if (/^[+-]?inf$/.test(word)) return word.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/.test(word)) return NaN;
  return undefined;
}
