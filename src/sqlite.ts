// The SQLite binding for the Node this runs on. Every module that opens a database imports it from here.
//
// better-sqlite3 13 is built on Node-API 10 (Node 22.14 and later) and ships prebuilt binaries; it is the one that
// is safe on Node 24, where 12 aborts when a statement is freed ("Assertion failed: (env) != nullptr").
// Node 20 has Node-API 9, on which 13 crashes: there the package installed as the optional alias
// better-sqlite3-node20 (better-sqlite3 12, same API) is loaded instead. The alias goes when Node 20 does.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** The package name of the binding this Node loads. */
export const sqliteBinding = Number(process.versions.napi ?? 0) >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20';

/** Where that binding's entry file is, for worker threads that open their own connection. */
export const sqliteBindingPath = require.resolve(sqliteBinding);

const Database = require(sqliteBinding) as typeof BetterSqlite3;

// The types are better-sqlite3's, whichever binding is loaded (12 and 13 share the API this project uses).
// eslint-disable-next-line @typescript-eslint/no-namespace
declare namespace Database {
  export type Database = BetterSqlite3.Database;
  export type Statement<P extends unknown[] | {} = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;
  export type Options = BetterSqlite3.Options;
  export type RunResult = BetterSqlite3.RunResult;
}

export default Database;
