// The rclone.conf INI dialect (goconfig v1.0.0 as rclone uses it): parsed into ordered sections and
// keys with their comments, and written back byte for byte the way rclone writes it.

/** goconfig's name for keys that appear before any section header; written without a header. */
export const DEFAULT_SECTION = 'DEFAULT';

export interface Entry {
  key: string;
  value: string;
  /** Comment lines directly above the key, joined with "\n"; "" when none. */
  comment: string;
}

export interface Section {
  name: string;
  /** Comment lines directly above the `[name]` header, joined with "\n"; "" when none. */
  comment: string;
  entries: Entry[];
}

export class ConfParseError extends Error {}

export class Conf {
  readonly sections: Section[] = [];
  /**
   * Comments after the last key. rclone drops these on its next save; we keep them, so a user's
   * note at the end of the file survives our edits (rclone reads them as harmless comments).
   */
  trailingComment = '';

  static parse(text: string): Conf {
    const conf = new Conf();
    let current: Section | undefined;
    let comments: string[] = [];
    const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
    for (const raw of body.split('\n')) {
      const line = raw.trim();
      if (line === '') continue;
      if (line.startsWith('#') || line.startsWith(';')) {
        comments.push(line);
        continue;
      }
      if (line.startsWith('[') && line.endsWith(']')) {
        current = conf.ensureSection(line.slice(1, -1).trim());
        if (comments.length > 0) current.comment = comments.join('\n');
        comments = [];
        continue;
      }
      const { key, value } = splitKeyValue(line);
      current ??= conf.ensureSection(DEFAULT_SECTION);
      const entry = setEntry(current, key, value);
      if (comments.length > 0) entry.comment = comments.join('\n');
      comments = [];
    }
    conf.trailingComment = comments.join('\n');
    return conf;
  }

  /** The file text, exactly as rclone would save it. */
  serialize(): string {
    let out = '';
    for (const section of this.sections) {
      if (section.comment) out += `${section.comment}\n`;
      if (section.name !== DEFAULT_SECTION) out += `[${section.name}]\n`;
      for (const entry of section.entries) {
        if (entry.comment) out += `${entry.comment}\n`;
        out += `${quoteKey(entry.key)} = ${quoteValue(entry.value)}\n`;
      }
      out += '\n';
    }
    if (this.trailingComment) out += `${this.trailingComment}\n`;
    return out;
  }

  /** Remote names in file order (the keyless DEFAULT section is not a remote). */
  remoteNames(): string[] {
    return this.sections.map((s) => s.name).filter((n) => n !== DEFAULT_SECTION);
  }

  has(name: string): boolean {
    return this.sections.some((s) => s.name === name);
  }

  section(name: string): Section | undefined {
    return this.sections.find((s) => s.name === name);
  }

  ensureSection(name: string): Section {
    let section = this.section(name);
    if (!section) {
      section = { name, comment: '', entries: [] };
      this.sections.push(section);
    }
    return section;
  }

  get(name: string, key: string): string | undefined {
    return this.section(name)?.entries.find((e) => e.key === key)?.value;
  }

  /** Sets a key; a new key goes last, an existing one keeps its place (as goconfig does). */
  set(name: string, key: string, value: string): void {
    setEntry(this.ensureSection(name), key, value);
  }

  deleteKey(name: string, key: string): void {
    const section = this.section(name);
    if (section) section.entries = section.entries.filter((e) => e.key !== key);
  }

  deleteSection(name: string): void {
    const at = this.sections.findIndex((s) => s.name === name);
    if (at >= 0) this.sections.splice(at, 1);
  }

  /** The remote's keys and values in file order. */
  entries(name: string): Array<[string, string]> {
    return (this.section(name)?.entries ?? []).map((e) => [e.key, e.value]);
  }
}

function setEntry(section: Section, key: string, value: string): Entry {
  let entry = section.entries.find((e) => e.key === key);
  if (entry) entry.value = value;
  else {
    entry = { key, value, comment: '' };
    section.entries.push(entry);
  }
  return entry;
}

/** Splits `key = value` at the first `=` or `:`, undoing goconfig's quoting of keys and values. */
function splitKeyValue(line: string): { key: string; value: string } {
  let key: string;
  let rest: string;
  const keyQuote = line.startsWith('"""') && line.length >= 6 ? '"""' : line[0] === '"' || line[0] === '`' ? line[0] : '';
  if (keyQuote) {
    const close = line.indexOf(keyQuote, keyQuote.length);
    if (close < 0) throw new ConfParseError(`could not parse line: ${line}`);
    const sep = indexOfAny(line, close + keyQuote.length);
    if (sep < 0) throw new ConfParseError(`could not parse line: ${line}`);
    key = line.slice(keyQuote.length, close);
    rest = line.slice(sep + 1);
  } else {
    const sep = indexOfAny(line, 0);
    if (sep <= 0) throw new ConfParseError(`could not parse line: ${line}`);
    key = line.slice(0, sep).trim();
    rest = line.slice(sep + 1);
  }
  const right = rest.trim();
  const valueQuote = right.length >= 2 && right[0] === '`' ? '`' : right.length >= 6 && right.startsWith('"""') ? '"""' : '';
  if (!valueQuote) return { key, value: right };
  const close = right.lastIndexOf(valueQuote);
  if (close < valueQuote.length) throw new ConfParseError(`could not parse line: ${line}`);
  return { key, value: right.slice(valueQuote.length, close) };
}

function indexOfAny(line: string, from: number): number {
  for (let i = from; i < line.length; i++) if (line[i] === '=' || line[i] === ':') return i;
  return -1;
}

function quoteKey(key: string): string {
  if (!key.includes('=') && !key.includes(':')) return key;
  if (!key.includes('`')) return `\`${key}\``;
  return key.includes('"') ? `"""${key}"""` : `"${key}"`;
}

function quoteValue(value: string): string {
  if (!value.includes('`')) return value;
  return value.includes('"') ? `"""${value}"""` : `"${value}"`;
}
