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
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildRequire = createRequire(import.meta.url);
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// Built-in modules, and two packages, loaded at their first use rather than at start, or never read whole.
//
// Loaded at first use: each of these holds RSS for the life of the process once loaded, measured on Node 24.21 in
// a one-line http server (Node 20 in brackets): https or tls +5.0 MB (+0.7), http2 +9.0, crypto +1.8 (+0.7), dns
// +0.7 (+0.2), assert +0.5 (+0.1), zlib +0.4 (+0.1). Fastify requires https and http2 for servers it is not asked
// to make and dns for a listen address that is a name; ws requires https, tls, zlib and crypto for wss://,
// compression and its handshake; prom-client requires zlib for its Pushgateway, which the relay never uses;
// find-my-way and Fastify call assert(); our own code needs crypto for a scan's follow-up and a request's secret.
// ws, which our own code loads at start (src/media-socket.ts) but uses only when a socket opens, and prom-client's
// Pushgateway are loaded at first use too, so what they require waits with them.
//
// Never read whole: on Node 24 an ES import of a built-in builds its module namespace, reading every export, and a
// lazy export loads its module then (node:fs's Dir, node:util's diff and argument parser, node:net's address
// lists; node:http's loads the WebSocket client, +14 MB). So node:http, node:fs, node:util and node:net, which our
// own code imports, get the stand-in as well (0.8 MB less on Node 24 for the last three). The other built-ins our
// own code imports stay ES imports: through a stand-in they held 1.2 MB more on Node 20, and nothing less on 24
// (the relay after 20 s idle, measured on both).
//
// The stand-in loads the real module on the first property read: after their own loading, these modules' users
// only read properties (assert's stand-in checks its condition and loads the real assert only to throw). It has
// the keys a file of ours imports by name, or else the module's keys on the Node that builds the bundle, each an
// accessor to the real module's; for a package's require(), any other key is read from the real module.
// test/deploy/bundle.test.ts fails if an idle relay loaded one of the first list, and sees a request's secret, an
// https:// server and a wss:// socket work.
const BUILTINS_ON_FIRST_USE = ['https', 'tls', 'http2', 'crypto', 'dns', 'assert', 'zlib'];
const OWN_BUILTINS_NEVER_READ_WHOLE = ['http', 'fs', 'util', 'net'];
/** Packages, or a package's own files, by what is required and who requires it. */
const PACKAGES_ON_FIRST_USE = [
  { request: 'ws', importer: /[\\/]src[\\/]media-socket\.ts$/ },
  { request: './lib/pushgateway', importer: /[\\/]prom-client[\\/]index\.js$/ },
];
const fromPackage = (importer) => /[\\/]node_modules[\\/]/.test(importer);
const escaped = (text) => text.replace(/[./]/g, '\\$&');

/**
 * The names a file of ours imports from a module (`import { a, b as c } from 'node:fs'`), or undefined when it
 * takes the whole module (a namespace or default import) or the import cannot be read that way.
 */
function namedImports(file, specifier) {
  const text = readFileSync(file, 'utf8');
  const from = `from ['"]${escaped(specifier)}['"]`;
  if (new RegExp(`import\\s+(?!type\\b)(\\*|\\w+)[^;]*${from}`).test(text)) return undefined;
  const names = [];
  for (const m of text.matchAll(new RegExp(`import\\s+(type\\s+)?\\{([^}]*)\\}\\s*${from}`, 'g'))) {
    if (m[1]) continue;
    for (const part of m[2].split(',')) {
      const name = part.trim().replace(/\s+as\s+\w+$/, '');
      if (name && !name.startsWith('type ')) names.push(name);
    }
  }
  return names.length > 0 ? [...new Set(names)].sort() : undefined;
}
const onFirstUse = {
  name: 'on-first-use',
  setup(b) {
    const names = [...BUILTINS_ON_FIRST_USE, ...OWN_BUILTINS_NEVER_READ_WHOLE];
    b.onResolve({ filter: new RegExp(`^(node:)?(${names.join('|')})$`) }, (args) => {
      // The stand-in's own require: the real module, outside the bundle.
      if (args.namespace === 'on-first-use') return { path: args.path, external: true };
      const name = args.path.replace(/^node:/, '');
      const own = !fromPackage(args.importer);
      if (!BUILTINS_ON_FIRST_USE.includes(name) && !(own && OWN_BUILTINS_NEVER_READ_WHOLE.includes(name))) return undefined;
      // Our own code's named imports get a stand-in with just those keys: the import helper copies every key of
      // the stand-in for each importing module, and all of node:fs's, 24 times, cost 3-5 ms of start-up.
      const used = own && args.kind === 'import-statement' ? namedImports(args.importer, args.path) : undefined;
      return { path: used ? `node:${name}#${used.join(',')}` : `node:${name}`, namespace: 'on-first-use' };
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
      const [path, used] = args.path.split('#');
      const builtin = path.startsWith('node:');
      const keys = used !== undefined ? used.split(',') : Object.keys(buildRequire(builtin ? path : join(root, path)));
      // What the stand-in is before its keys: an object; for assert, a function that checks its condition; for a
      // package (a class), a function that constructs the real one.
      const base =
        path === 'node:assert'
          ? '(...args) => { if (args.length === 0 || !args[0]) load()(...args); }'
          : builtin
            ? '{}'
            : 'function (...args) { return new.target ? Reflect.construct(load(), args) : load()(...args); }';
      return {
        // Plain accessors, not a Proxy: esbuild's ES-import helper copies them for each importing module, and
        // through a Proxy's traps that took 7 ms longer at start (24 modules import node:fs). A stand-in with
        // every key (a package's require(), a namespace import) has them behind a Proxy that reads any other key
        // from the real module: a key not enumerable, or one the Node that built the bundle lacks (not
        // __esModule, which esbuild's helper asks of every module).
        contents: `let real; const load = () => (real ??= require(${JSON.stringify(builtin ? path : `./${path}`)}));
const standIn = ${base};
for (const key of ${JSON.stringify(keys)}) {
  if (!Object.hasOwn(standIn, key)) Object.defineProperty(standIn, key, { configurable: true, enumerable: true, get: () => load()[key], set: (value) => { load()[key] = value; } });
}
module.exports = ${used === undefined ? 'new Proxy(standIn, { get: (target, key) => (key in target || key === "__esModule" ? target[key] : load()[key]) })' : 'standIn'};`,
        loader: 'js',
        resolveDir: root,
      };
    });
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
  plugins: [onFirstUse, fastifyOnDemand],
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
