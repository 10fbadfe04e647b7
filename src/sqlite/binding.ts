// The SQLite binding for the Node this runs on. Every module that opens a database imports it from here.
//
// better-sqlite3 13 is built on Node-API 10 (Node 22.14 and later) and ships prebuilt binaries; it is the one that
// is safe on Node 24, where 12 aborts when a statement is freed ("Assertion failed: (env) != nullptr").
// A Node with Node-API 9 (Node 20, past its end of life) crashes on 13: there better-sqlite3 12 is loaded, installed
// as better-sqlite3-node20 by scripts/sqlite-node20.mjs (a checkout's npm ci runs it on such a Node only).
// The alias goes when Node 20 does. A binding that is missing or was never compiled is one line saying what to do.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** The package name of the binding this Node loads. */
export const sqliteBinding = Number(process.versions.napi ?? 0) >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20';

/** What to do when the binding cannot open a database: one line. */
export const missingSqliteLine =
  sqliteBinding === 'better-sqlite3'
    ? 'The SQLite module (better-sqlite3) is not installed: run `npm ci` in the checkout, or install scanrelay again.'
    : `Node ${process.version} needs a SQLite module compiled for it (better-sqlite3-node20): in the checkout run \`npm run sqlite-node20\` (needs g++, make and python3), or use Node 22.14 or later, which needs no compiler.`;

const isMissing = (err: unknown) =>
  (err as { code?: string }).code === 'MODULE_NOT_FOUND' || /Could not locate the bindings file/.test(String((err as Error).message));

const found = (() => {
  try {
    return { path: require.resolve(sqliteBinding), Database: require(sqliteBinding) as typeof BetterSqlite3 };
  } catch (err) {
    if (!isMissing(err)) throw err;
    return { path: '', Database: undefined };
  }
})();

/** Where that binding's entry file is, for worker threads that open their own connection ('' when it is missing). */
export const sqliteBindingPath = found.path;

// better-sqlite3 loads its compiled part at the first open: a missing one fails there, and says so in one line.
const Database = new Proxy((found.Database ?? function Missing() {}) as typeof BetterSqlite3, {
  construct(target, args, newTarget) {
    if (!found.Database) throw new Error(missingSqliteLine);
    try {
      return Reflect.construct(target, args, newTarget) as object;
    } catch (err) {
      throw isMissing(err) ? new Error(missingSqliteLine) : err;
    }
  },
});

// The types are better-sqlite3's, whichever binding is loaded (12 and 13 share the API this project uses).
// eslint-disable-next-line @typescript-eslint/no-namespace
declare namespace Database {
  export type Database = BetterSqlite3.Database;
  export type Statement<P extends unknown[] | {} = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;
  export type Options = BetterSqlite3.Options;
  export type RunResult = BetterSqlite3.RunResult;
}

export default Database;
