// The limits another tool's config file is read under (import-autopulse, import-autoscan), the error that names
// the line, and the one walk that holds a parsed file to them. Parser-free, so the commands' own chunk can throw and
// catch the error without loading a parser (docs/security.md, "Importing another tool's config").
import { keepStart } from '../text-cut.js';

/** The formats the importers read: autopulse's by its file's extension, autoscan's YAML. */
export type ForeignFormat = 'toml' | 'yaml' | 'json';

/**
 * The largest file read. autopulse's and autoscan's configs are a few KB (several hundred triggers and targets stay
 * under 100 KB); the limit keeps the slowest parser path (YAML, linear, about 1 µs a byte) far
 * under a second.
 */
export const MAX_BYTES = 256 * 1024;
/** Tables, lists and dotted-key parts from the top to the deepest value; the configs use about 6. */
export const MAX_DEPTH = 64;
/**
 * YAML aliases (`*name`): as many written, and each counted for what it expands to (yaml's maxAliasCount), since
 * aliases of aliases multiply: a bomb of 1 KB stands for 10^9 values or more.
 */
export const MAX_ALIASES = 100;
/**
 * Keys a plain object must not get from a file: `__proto__` would set (or hide as an own key) the prototype, and
 * `constructor` and `prototype` shadow what code reading the object expects there. No autopulse or autoscan key has
 * these names, so a file that holds one is refused rather than read around.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** What a file breaks, with the line (1-based) where the parser or the walk found it. */
export class ForeignConfigError extends Error {
  constructor(
    readonly reason: string,
    readonly line?: number,
  ) {
    super(line === undefined ? reason : `line ${line}: ${reason}`);
  }
}

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

/** A child of a node the walk visits: under a key (of a mapping) or not (an item of a list). */
export interface TreeEntry<Node> {
  key?: string;
  node: Node;
  /** Where the key is written, when the format has positions (a problem at a key is told at the key's line). */
  keyNode?: Node;
}

/** What the walk refuses: a forbidden key, or a node deeper than MAX_DEPTH. */
export interface TreeProblem<Node> extends TreeEntry<Node> {
  kind: 'key' | 'depth';
  path: string[];
}

export interface Tree<Node> {
  /** The node's children, or undefined for a leaf. May throw a ForeignConfigError (a key the format refuses). */
  entries(node: Node): TreeEntry<Node>[] | undefined;
  /** The line of a problem, when the format can tell. */
  lineOf(problem: TreeProblem<Node>): number | undefined;
}

/**
 * Refuses a forbidden key or a node deeper than MAX_DEPTH, naming the keys that lead to it. A loop with its own
 * stack, not recursion, so a hostile depth cannot overflow the call stack before it is counted.
 */
export function checkTree<Node>(root: Node, tree: Tree<Node>): void {
  const stack: { node: Node; path: string[] }[] = [{ node: root, path: [] }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const entries = tree.entries(next.node);
    if (!entries) continue;
    const children: { node: Node; path: string[] }[] = [];
    for (const entry of entries) {
      const { key, node } = entry;
      const path = [...next.path, key ?? `[]`];
      if (key !== undefined && FORBIDDEN_KEYS.has(key)) {
        const line = tree.lineOf({ ...entry, kind: 'key', path });
        throw new ForeignConfigError(`the key '${key}'${path.length > 1 ? ` (at ${pathText(path)})` : ''} is refused: no setting has that name, and on a JavaScript object it would change the object's prototype or methods`, line);
      }
      if (path.length > MAX_DEPTH) {
        const line = tree.lineOf({ ...entry, kind: 'depth', path });
        throw new ForeignConfigError(`nested more than ${MAX_DEPTH} levels deep (at ${pathText(path)}); autopulse and autoscan configs nest about 6`, line);
      }
      children.push({ node, path });
    }
    // Reversed onto the stack, so nodes are visited in the file's order and the first problem found is the first.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** `a.b[].c`, shortened in the middle when deep and each key to 40 characters. */
function pathText(path: string[]): string {
  const parts = path.length > 8 ? [...path.slice(0, 4), '…', ...path.slice(-3)] : path;
  return parts.map((p, i) => (p === '[]' ? '[]' : `${i === 0 ? '' : '.'}${p.length > 40 ? `${keepStart(p, 40)}…` : p}`)).join('');
}
