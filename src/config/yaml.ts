// Reads the YAML subset autoscan's config.yml uses: block mappings and sequences, plain and quoted scalars,
// flow lists, comments, anchors, aliases and "<<" merges. Block scalars (| and >) and tags are refused by name.

export class YamlError extends Error {
  constructor(message: string, readonly line: number) {
    super(`line ${line}: ${message}`);
  }
}

interface Line {
  indent: number;
  text: string;
  no: number;
}

export function parseYaml(source: string): unknown {
  const lines: Line[] = [];
  source.split(/\r?\n/).forEach((raw, i) => {
    if (/^\s*\t/.test(raw)) throw new YamlError('a tab in the indentation: YAML indents with spaces', i + 1);
    const text = stripComment(raw).trimEnd();
    if (text.trim() === '' || text.trim() === '---') return;
    lines.push({ indent: text.length - text.trimStart().length, text: text.trimStart(), no: i + 1 });
  });
  if (lines.length === 0) return null;
  const reader = new Reader(lines);
  const value = reader.block(0, lines[0].indent);
  if (reader.at < lines.length) throw new YamlError('unexpected indentation', lines[reader.at].no);
  return value;
}

function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s:\-[,{]/.test(line[i - 1])) quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) {
      return line.slice(0, i);
    }
  }
  return line;
}

class Reader {
  at = 0;
  private readonly anchors = new Map<string, unknown>();

  constructor(private readonly lines: Line[]) {}

  block(index: number, indent: number): unknown {
    this.at = index;
    const first = this.lines[index];
    return isItem(first.text) ? this.sequence(indent) : this.mapping(indent);
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    while (this.at < this.lines.length) {
      const line = this.lines[this.at];
      // A list written at its key's indentation ends where the next key begins.
      if (line.indent < indent || (line.indent === indent && !isItem(line.text))) break;
      if (line.indent > indent) throw new YamlError('expected a "- " list item', line.no);
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        out.push(this.nested(this.at + 1, indent, line.no));
        continue;
      }
      if (isKeyLine(rest) || isItem(rest)) {
        // "- key: value" opens a mapping whose keys line up with "key".
        const inner = indent + (line.text.length - rest.length);
        this.lines[this.at] = { indent: inner, text: rest, no: line.no };
        out.push(this.block(this.at, inner));
        continue;
      }
      this.at++;
      out.push(this.inline(rest, line.no, this.at, indent));
    }
    return out;
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (this.at < this.lines.length) {
      const line = this.lines[this.at];
      if (line.indent < indent) break;
      if (line.indent > indent) throw new YamlError('unexpected indentation', line.no);
      if (isItem(line.text)) break;
      const split = splitKey(line.text);
      if (!split) throw new YamlError(`expected "key: value", got '${line.text.slice(0, 40)}'`, line.no);
      const [key, rest] = split;
      this.at++;
      let value: unknown;
      if (rest === '' || /^&\S+$/.test(rest)) {
        const next = this.lines[this.at];
        // A list may sit at the same indentation as its key.
        const sameIndentList = next && next.indent === indent && isItem(next.text);
        value = next && (next.indent > indent || sameIndentList) ? this.block(this.at, next.indent) : null;
        if (rest !== '') this.anchors.set(rest.slice(1), value);
      } else {
        value = this.inline(rest, line.no, this.at, indent);
      }
      if (key === '<<') {
        for (const source of Array.isArray(value) ? value : [value]) {
          if (source && typeof source === 'object') for (const [k, v] of Object.entries(source)) if (!(k in out)) out[k] = v;
        }
      } else {
        out[key] = value;
      }
    }
    return out;
  }

  /** The value after "- " or "key: " when on the same line; an "&anchor" in front may also hold a nested block. */
  private inline(text: string, no: number, next: number, indent: number): unknown {
    const anchor = /^&(\S+)\s+(.*)$/.exec(text);
    if (anchor) {
      const value = this.inline(anchor[2], no, next, indent);
      this.anchors.set(anchor[1], value);
      return value;
    }
    if (text.startsWith('*')) {
      const name = text.slice(1).trim();
      if (!this.anchors.has(name)) throw new YamlError(`alias *${name} names no anchor defined above`, no);
      return this.anchors.get(name);
    }
    if (text.startsWith('|') || text.startsWith('>')) throw new YamlError('block scalars (| and >) are not supported: write the value on one line', no);
    if (text.startsWith('!')) throw new YamlError('tags (!) are not supported', no);
    return scalarOrFlow(text, no);
  }

  private nested(index: number, indent: number, no: number): unknown {
    const next = this.lines[index];
    this.at = index;
    if (!next || next.indent <= indent) return null;
    void no;
    return this.block(index, next.indent);
  }
}

const isItem = (text: string) => text === '-' || text.startsWith('- ');

function isKeyLine(text: string): boolean {
  return splitKey(text) !== undefined;
}

/** "key: rest" (key plain or quoted); undefined when the text is no mapping entry. */
function splitKey(text: string): [string, string] | undefined {
  if (text.startsWith('"') || text.startsWith("'")) {
    const end = closingQuote(text, 0);
    if (end < 0 || text[end + 1] !== ':' || (text.length > end + 2 && text[end + 2] !== ' ')) return undefined;
    return [unquote(text.slice(0, end + 1), 0), text.slice(end + 2).trim()];
  }
  if (text.startsWith('[') || text.startsWith('{')) return undefined;
  const m = /^([^:]*?):(?:\s+(.*))?$/.exec(text);
  if (!m || m[1].trim() === '') return undefined;
  return [m[1].trim(), (m[2] ?? '').trim()];
}

function closingQuote(text: string, start: number): number {
  const q = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (q === '"' && text[i] === '\\') i++;
    else if (text[i] === q) {
      if (q === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

function unquote(text: string, no: number): string {
  const q = text[0];
  const body = text.slice(1, -1);
  if (q === "'") return body.replace(/''/g, "'");
  try {
    return JSON.parse(`"${body.replace(/\\'/g, "'")}"`) as string;
  } catch {
    throw new YamlError(`bad escape in "${body.slice(0, 40)}"`, no);
  }
}

function scalarOrFlow(text: string, no: number): unknown {
  if (text.startsWith('"') || text.startsWith("'")) {
    const end = closingQuote(text, 0);
    if (end !== text.length - 1) throw new YamlError(`unterminated or trailing text after quoted value '${text.slice(0, 40)}'`, no);
    return unquote(text, no);
  }
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) throw new YamlError('a flow list must end on its line with "]"', no);
    const inner = text.slice(1, -1).trim();
    return inner === '' ? [] : splitFlow(inner).map((part) => scalarOrFlow(part.trim(), no));
  }
  if (text === '{}') return {};
  if (text.startsWith('{')) throw new YamlError('flow mappings ({...}) are not supported: write one "key: value" per line', no);
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^(null|Null|NULL|~)$/.test(text)) return null;
  if (/^[-+]?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

function splitFlow(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") i = Math.max(i, closingQuote(text, i));
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.filter((p) => p.trim() !== '');
}
