// autoscan's config.yml and autopulse's config.yaml, read with the yaml package under the import's limits
// (foreign-limits.ts). Three steps, so that nothing costly runs before its limit is checked: the parser's own stack
// measures the depth as the text is read (building the document recurses once per level); the document's nodes
// are walked for keys (written out, once per mapping, no forbidden name) and aliases; the value is made last, with
// aliases counted by what they expand to. yaml's own `uniqueKeys` is off: it compares each key with every other
// (a 20,000-key mapping took seconds), where the walk keeps a set.
import { Composer, isAlias, isMap, isScalar, isSeq, Lexer, Parser, visit, type Alias, type CST, type Document, type Node } from 'yaml';
import { checkTree, ForeignConfigError, lineAt, MAX_ALIASES, MAX_DEPTH, type Tree } from './foreign-limits.js';

export function parseYaml(text: string): unknown {
  const doc = compose(text);
  const aliases: Alias[] = [];
  const anchors = new Map<string, number>();
  checkTree<unknown>(doc.contents, nodeTree(text, aliases, anchors));
  const unresolved = aliases.find((alias) => !((anchors.get(alias.source) ?? Infinity) < (alias.range?.[0] ?? 0)));
  if (unresolved) throw new ForeignConfigError(`the alias *${unresolved.source} names no anchor (&${unresolved.source}) above it`, at(text, unresolved));
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    const nested = aliases.find((alias) => holdsAlias(alias.resolve(doc))) ?? aliases[0];
    throw new ForeignConfigError(`aliases (*name) expand to more than ${MAX_ALIASES} copies of what they name (aliases of aliases multiply: a small file can stand for billions of values)`, nested && at(text, nested));
  }
}

/** The one document in `text`, its depth checked on the parser's stack before it is built. */
function compose(text: string): Document.Parsed {
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The stack holds the document and each open collection, about one a level: twice MAX_DEPTH only guards
    // the building's recursion, the walk counts exactly.
    if (parser.stack.length > 2 * MAX_DEPTH) throw new ForeignConfigError(`nested more than ${MAX_DEPTH} levels deep`, lineAt(text, parser.offset));
  }
  for (const token of parser.end()) tokens.push(token);
  const docs = [...new Composer({ merge: true, uniqueKeys: false }).compose(tokens, true, text.length)];
  if (docs.length > 1) throw new ForeignConfigError('a second YAML document (after ---): the settings must be one document', lineAt(text, docs[1].range[0]));
  const [doc] = docs;
  const [error] = doc.errors;
  if (error) throw new ForeignConfigError(`${error.message}${HINTS[error.code] ?? ''}`, lineAt(text, error.pos[0]));
  return doc;
}

/** What a user can do about yaml's terser errors. */
const HINTS: Record<string, string> = {
  BLOCK_AS_IMPLICIT_KEY: ' (is the line after this one indented too far?)',
  MULTILINE_IMPLICIT_KEY: ' (is the line after this one indented too far?)',
  TAB_AS_INDENT: ' (YAML indents with spaces)',
};

/** The document's nodes as the walk sees them; each alias is noted in `aliases`, each anchor's first offset in `anchors`. */
function nodeTree(text: string, aliases: Alias[], anchors: Map<string, number>): Tree<unknown> {
  return {
    entries: (node) => {
      if ((isMap(node) || isSeq(node) || isScalar(node)) && node.anchor && node.range) {
        const earliest = anchors.get(node.anchor);
        if (earliest === undefined || node.range[0] < earliest) anchors.set(node.anchor, node.range[0]);
      }
      if (isAlias(node)) {
        aliases.push(node);
        if (aliases.length > MAX_ALIASES) throw new ForeignConfigError(`more than ${MAX_ALIASES} aliases (*name)`, at(text, node));
        return undefined;
      }
      if (isSeq(node)) return node.items.map((item) => ({ node: item }));
      if (!isMap(node)) return undefined;
      const seen = new Map<string, unknown>();
      return node.items.map(({ key, value }) => {
        const name = keyName(text, key);
        const first = seen.get(name);
        if (seen.has(name)) throw new ForeignConfigError(`the key '${name}' is given twice in one mapping (first on line ${at(text, first)})`, at(text, key));
        seen.set(name, key);
        return { key: name, node: value, keyNode: key };
      });
    },
    lineOf: ({ node, keyNode }) => at(text, keyNode ?? node),
  };
}

/** A key as the value will spell it; only written-out keys (a YAML key may be a list, a mapping or an alias). */
function keyName(text: string, key: unknown): string {
  if (key === null) return '';
  if (!isScalar(key)) throw new ForeignConfigError('a key must be written out: not a list, a mapping or an alias (*name)', at(text, key));
  // The merge key `<<` is a symbol.
  return typeof key.value === 'symbol' ? '<<' : String(key.value);
}

function holdsAlias(node: unknown): boolean {
  let found = false;
  if (isMap(node) || isSeq(node)) visit(node, { Alias: () => void (found = true) });
  return found;
}

/** The line a node starts on. */
function at(text: string, node: unknown): number | undefined {
  const range = (node as Node | undefined)?.range;
  return range ? lineAt(text, range[0]) : undefined;
}
