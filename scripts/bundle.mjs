// Builds dist/scanrelay.mjs, the program `npm start`, the `scanrelay` command and the image run: the CLI and its
// dependencies in one ES module, and beside it in dist/chunks/ what the server does not load at start (every
// other command, the Drive monitor, the dashboard's pages, the OpenAPI document), loaded by import() when needed.
// Start-up is mostly Node finding, reading and compiling several hundred module files; one file cuts that by
// about a third, and leaving out what a server does not run keeps an idle relay smaller (docs/performance.md).
// The SQLite modules stay outside: they load native binaries (src/sqlite.ts picks the one for the running Node).
// The OpenAPI document is made here from the routes' schemas and put in place of its generator
// (src/server/openapi.ts), so the running relay never loads @fastify/swagger; the routes' JSON schemas are made
// here too, in place of the zod types they come from (src/server/schemas.ts).
//
//   node scripts/bundle.mjs [outfile]      default dist/scanrelay.mjs (chunks in its folder's chunks/)
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// node:http and node:https through require(), not as ES module imports. On Node 24 an ES import of either builds
// its module namespace, which reads every export, lazy ones included, and one of them loads the WebSocket client
// and its parser: 12-14 MB of RSS for the life of the process (+14 MB for http, +9.5 MB for https alone, measured
// on 24.21 in a one-line program; Node 20 does not). require() hands back the exports object untouched.
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^node:https?$/ }, (args) => (args.namespace === 'builtin-by-require' ? { path: args.path, external: true } : { path: args.path, namespace: 'builtin-by-require' }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-by-require' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

// node:https, node:tls and node:http2 loaded at their first use, not at start. Fastify requires https and http2 for
// servers it is not asked to make, and ws requires https and tls for wss:// connections; loading any of them sets
// up TLS, which on Node 24 holds 5-9 MB of RSS for the life of the process (measured in a one-line http server:
// +5.0 MB for https or tls, +9.0 MB for http2; Node 20 +0.7). Those packages only read properties of the module
// (tls.connect, https.request, http2.createServer), so a stand-in that loads the real module on the first read is
// enough. Our own code asks for node:https when it sends to an https:// URL (src/http-fetch.ts).
const lazyTls = {
  name: 'lazy-tls',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(https|tls|http2)$/ }, (args) => {
      if (args.namespace === 'lazy-tls') return { path: args.path, external: true };
      if (!/[\\/]node_modules[\\/]/.test(args.importer)) return undefined;
      return { path: args.path.replace(/^node:/, ''), namespace: 'lazy-tls' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-tls' }, (args) => ({
      contents: `let real; const load = () => (real ??= require(${JSON.stringify(`node:${args.path}`)}));
module.exports = new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => { const d = Object.getOwnPropertyDescriptor(load(), key); return d && { ...d, configurable: true }; },
});`,
      loader: 'js',
    }));
  },
};

// Fastify's schema compilers (ajv, fast-json-stringify) and its inject() client (light-my-request) stay in
// node_modules, loaded from there the first time a route's schema is used (src/server/lazy-compilers.ts) or a
// request is injected. Fastify requires them only then, but in the bundle their 430 KB of source would be read
// and parsed at every start: about 1.5 MB of RSS on Node 24 for code an idle relay never runs. They are found
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
  target: 'node20',
  // src/version.ts: the bundle may run from anywhere, so it does not look for package.json.
  define: { SCANRELAY_VERSION: JSON.stringify(version) },
  external: ['better-sqlite3', 'better-sqlite3-node20'],
  plugins: [lazyTls, fastifyOnDemand, builtinsByRequire],
  // The CommonJS dependencies (fastify, pino, prom-client) call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as scanrelayRequire } from 'node:module'; const require = scanrelayRequire(import.meta.url);" },
  // Whitespace and syntax minified, names left as written: renaming them would need esbuild's keepNames, which
  // calls a helper to set `name` on every function each time one is created, and Fastify creates several per
  // request (4% of the intake's CPU, docs/performance.md). ASCII only: V8 keeps the source of a module for its
  // lazily compiled functions, and one character outside Latin-1 (a comment was enough) made it keep all of it
  // two bytes a character. Licence comments go to scanrelay.mjs.LEGAL.txt.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  legalComments: 'linked',
  sourcemap: 'linked',
  logLevel: 'warning',
};

const openapiSource = /[\\/]src[\\/]server[\\/]openapi\.ts$/;

/**
 * What the build makes ahead of the running relay, from one throwaway bundle of the sources (in outdir for the
 * moment, where node_modules resolves): the OpenAPI document (src/server/openapi.ts over the control API's routes)
 * and the routes' JSON schemas, made from src/server/schemas.ts's zod schemas by its own jsonSchema(): for each
 * schema exported, what it takes (input) and what it gives (output).
 */
async function buildTimeParts(outdir) {
  const file = join(outdir, `.build-time-${process.pid}.mjs`);
  try {
    const contents = [
      "export { openapiDocument } from './src/server/openapi.ts';",
      "export { controlApiRoutes } from './src/server/control-api.ts';",
      "export * as schemas from './src/server/schemas.ts';",
    ].join('\n');
    await build({ ...bundleOptions, entryPoints: undefined, stdin: { contents, resolveDir: root, sourcefile: 'build-time.ts', loader: 'ts' }, outfile: file, sourcemap: false, legalComments: 'none' });
    const { openapiDocument, controlApiRoutes, schemas } = await import(pathToFileURL(file).href);
    const routeSchemas = {};
    for (const [name, value] of Object.entries(schemas)) {
      if (value && typeof value === 'object' && '_zod' in value) routeSchemas[name] = { input: schemas.jsonSchema(value, 'input'), output: schemas.jsonSchema(value, 'output') };
    }
    return { doc: await openapiDocument(controlApiRoutes), routeSchemas };
  } finally {
    rmSync(file, { force: true });
  }
}

const routeSchemasSource = /[\\/]src[\\/]server[\\/]schemas\.ts$/;

/**
 * src/server/schemas.ts in the bundle: the routes' JSON schemas made at build time, so the running relay builds
 * no zod object for them. The running code uses these exports only through jsonSchema() (and as types);
 * test/deploy/bundle.test.ts checks the module built and a route's validation and serialization through it.
 */
const finishedRouteSchemas = (made) => ({
  name: 'finished-route-schemas',
  setup(b) {
    b.onLoad({ filter: routeSchemasSource }, () => ({
      contents: [
        `const made = ${JSON.stringify(made)};`,
        ...Object.keys(made).map((name) => `export const ${name} = made.${name};`),
        // A copy each time, as zod made a new object each time: Fastify may add to a schema it is given.
        `export function jsonSchema(schema, io = 'output') { return structuredClone(schema[io]); }`,
      ].join('\n'),
      loader: 'js',
    }));
  },
});

/** src/server/openapi.ts in the bundle: the finished document instead of the code that makes it. */
const finishedOpenapi = (doc) => ({
  name: 'finished-openapi',
  setup(b) {
    b.onLoad({ filter: openapiSource }, () => ({ contents: `export async function openapiDocument() { return ${JSON.stringify(doc)}; }`, loader: 'js' }));
  },
});

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outfile = resolve(process.argv[2] ?? join(root, 'dist', 'scanrelay.mjs'));
  const outdir = dirname(outfile);
  const { doc, routeSchemas } = await buildTimeParts(outdir);
  // Chunk names carry a hash of their content: the ones of an earlier build would pile up.
  rmSync(join(outdir, 'chunks'), { recursive: true, force: true });
  await build({
    ...bundleOptions,
    entryPoints: { [basename(outfile).replace(/\.m?js$/, '')]: bundleOptions.entryPoints[0] },
    outdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [...bundleOptions.plugins, finishedOpenapi(doc), finishedRouteSchemas(routeSchemas)],
  });
}
