// Builds dist/scanrelay.mjs, the program `npm start`, the `scanrelay` command and the image run: the CLI and its
// dependencies in one ES module, and beside it in dist/chunks/ what the server does not load at start (every
// other command, the Drive monitor, the dashboard's pages, the OpenAPI document), loaded by import() when needed.
// Start-up is mostly Node finding, reading and compiling several hundred module files; one file cuts that, and
// leaving out what a server does not run keeps an idle relay smaller (docs/performance.md).
// The SQLite modules stay outside: they load native binaries (src/sqlite/binding.ts picks the one for the running Node).
// Every file of ours is bundled as written: what our own code loads late, it loads late in the source (import()),
// so the tests run the program users run. Only what third-party packages require at
// start is handed a stand-in here (below).
//
//   node scripts/bundle.mjs [outfile]      default dist/scanrelay.mjs (chunks in its folder's chunks/)
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildRequire = createRequire(import.meta.url);
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// Built-in modules, and one package's own file, that third-party packages require at start but use only on some
// paths: each is loaded at its first use instead. Each of these holds memory for the life of the process once
// loaded (docs/performance.md, "Built-ins"). Fastify requires https and http2 for
// servers it is not asked to make and dns for a listen address that is a name; ws requires https, tls, zlib and
// crypto for wss://, compression and its handshake; prom-client requires zlib and its Pushgateway, which the relay
// never uses; find-my-way and Fastify call assert().
//
// Our own code is not touched: it takes what it needs when it needs it, in the source (ws by import() with the
// first socket, node:http where a request goes out), so the tests run it as it runs.
//
// The stand-in loads the real module on the first property read: after their own loading, these packages only
// read properties (assert's stand-in checks its condition and loads the real assert only to throw). It has the
// module's keys on the Node that builds the bundle, each an accessor to the real module's, behind a Proxy that
// reads any other key from the real module. test/deploy/bundle.test.ts fails if an idle relay loaded TLS, assert
// or zlib, and sees an https:// server and a wss:// socket work.
const BUILTINS_ON_FIRST_USE = ['https', 'tls', 'http2', 'crypto', 'dns', 'assert', 'zlib'];
/** A package's own files, by what is required and who requires it. */
const PACKAGES_ON_FIRST_USE = [{ request: './lib/pushgateway', importer: /[\\/]prom-client[\\/]index\.js$/ }];
const fromPackage = (importer) => /[\\/]node_modules[\\/]/.test(importer);
const escaped = (text) => text.replace(/[./]/g, '\\$&');

const onFirstUse = {
  name: 'on-first-use',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(node:)?(${BUILTINS_ON_FIRST_USE.join('|')})$`) }, (args) => {
      // The stand-in's own require: the real module, outside the bundle.
      if (args.namespace === 'on-first-use') return { path: args.path, external: true };
      if (!fromPackage(args.importer)) return undefined;
      return { path: `node:${args.path.replace(/^node:/, '')}`, namespace: 'on-first-use' };
    });
    for (const { request, importer } of PACKAGES_ON_FIRST_USE) {
      b.onResolve({ filter: new RegExp(`^${escaped(request)}$`) }, async (args) => {
        if (args.namespace === 'on-first-use' || !importer.test(args.importer)) return undefined;
        // The real file, as require() finds it from its importer; the stand-in's require() puts it in the bundle.
        const real = await b.resolve(args.path, { kind: 'require-call', resolveDir: args.resolveDir, namespace: 'on-first-use' });
        return { path: relative(root, real.path), namespace: 'on-first-use' };
      });
    }
    b.onLoad({ filter: /.*/, namespace: 'on-first-use' }, (args) => {
      const path = args.path;
      const builtin = path.startsWith('node:');
      const keys = Object.keys(buildRequire(builtin ? path : join(root, path)));
      // What the stand-in is before its keys: an object; for assert, a function that checks its condition; for a
      // package (a class), a function that constructs the real one.
      const base =
        path === 'node:assert'
          ? '(...args) => { if (args.length === 0 || !args[0]) load()(...args); }'
          : builtin
            ? '{}'
            : 'function (...args) { return new.target ? Reflect.construct(load(), args) : load()(...args); }';
      return {
        // The Proxy reads from the real module any key the accessors lack: one not enumerable (zlib's Z_*
        // constants, which ws reads), or one the Node that built the bundle lacks (not __esModule, which esbuild's
        // helper asks of every module).
        contents: `let real; const load = () => (real ??= require(${JSON.stringify(builtin ? path : `./${path}`)}));
const standIn = ${base};
for (const key of ${JSON.stringify(keys)}) {
  if (!Object.hasOwn(standIn, key)) Object.defineProperty(standIn, key, { configurable: true, enumerable: true, get: () => load()[key], set: (value) => { load()[key] = value; } });
}
module.exports = new Proxy(standIn, { get: (target, key) => (key in target || key === "__esModule" ? target[key] : load()[key]) });`,
        loader: 'js',
        resolveDir: root,
      };
    });
  },
};

// Fastify's schema compilers (ajv, fast-json-stringify) and its inject() client (light-my-request) stay in
// node_modules, loaded from there the first time a route's schema is used (src/server/lazy-compilers.ts) or a
// request is injected. Fastify requires them only then, but in the bundle their source would be read and parsed
// at every start, memory held for code an idle relay never runs (docs/performance.md). They are found
// from fastify's own folder, where npm installs them.
const FROM_FASTIFY = /^(@fastify\/ajv-compiler|@fastify\/fast-json-stringify-compiler|light-my-request)$/;
const fastifyOnDemand = {
  name: 'fastify-on-demand',
  setup(b) {
    b.onResolve({ filter: FROM_FASTIFY }, (args) => ({ path: args.path, namespace: 'fastify-on-demand' }));
    b.onLoad({ filter: /.*/, namespace: 'fastify-on-demand' }, (args) => ({
      contents: `module.exports = require('node:module').createRequire(require.resolve('fastify'))(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/** The options of the relay's bundle; bench/memory-parts.ts bundles its programs with them too. */
export const bundleOptions = {
  entryPoints: [join(root, 'src', 'cli', 'index.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // src/version.ts: the bundle may run from anywhere, so it does not look for package.json.
  define: { SCANRELAY_VERSION: JSON.stringify(version) },
  external: ['better-sqlite3', 'better-sqlite3-node20'],
  plugins: [onFirstUse, fastifyOnDemand],
  // The CommonJS dependencies (fastify, pino, prom-client) call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as scanrelayRequire } from 'node:module'; const require = scanrelayRequire(import.meta.url);" },
  // Whitespace and syntax minified, names left as written: renaming them would need esbuild's keepNames, which
  // calls a helper to set `name` on every function each time one is created, and Fastify creates several per
  // request (docs/performance.md). ASCII only: V8 keeps the source of a module for its
  // lazily compiled functions, and one character outside Latin-1 (a comment was enough) made it keep all of it
  // two bytes a character. Licence comments go to scanrelay.mjs.LEGAL.txt.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  legalComments: 'linked',
  sourcemap: 'linked',
  logLevel: 'warning',
};

/**
 * What a build into `outdir` removes first. Chunk names carry a hash of their content: the ones of an earlier build
 * would pile up. dist/ is the bundle's alone (package.json "files"), so what an older build or tsc left there goes
 * too, or npm pack would ship it; another folder (a test's, a benchmark's) loses only its chunks/.
 */
export function clearedBefore(outdir) {
  return resolve(outdir) === join(root, 'dist') ? join(root, 'dist') : join(outdir, 'chunks');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outfile = resolve(process.argv[2] ?? join(root, 'dist', 'scanrelay.mjs'));
  const outdir = dirname(outfile);
  rmSync(clearedBefore(outdir), { recursive: true, force: true });
  await build({
    ...bundleOptions,
    entryPoints: { [basename(outfile).replace(/\.m?js$/, '')]: bundleOptions.entryPoints[0] },
    outdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
  });
}
