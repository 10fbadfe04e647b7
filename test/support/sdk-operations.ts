// The operations the official clients know, read from their generated code: @jellyfin/sdk (generated from
// Jellyfin's OpenAPI document; each param creator sets `localVarPath`, `method` and `localVarQueryParameter[...]`)
// and @lukehagar/plexjs (each function builds `pathToFunc("…")`, `method: "…"` and `encodeFormQuery({…})`).
// Reading the generated source keeps the check free of axios and of calling 364 functions with made-up arguments.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

export interface Operation {
  method: string;
  /** Path template with its parameters as `{}`. */
  template: string;
  query: string[];
  source: string;
}

export interface OurRequest {
  method: string;
  /** Path template; parameter names do not matter. */
  template: string;
  query: string[];
  /** The file that sends it. */
  from: string;
}

const require = createRequire(import.meta.url);
const normalise = (template: string): string => template.replace(/\{[^}]*\}/g, '{}');

export function jellyfinOperations(): Operation[] {
  const dir = join(dirname(require.resolve('@jellyfin/sdk/package.json')), 'lib/generated-client/api');
  const ops: Operation[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('-api.js'))) {
    const chunks = readFileSync(join(dir, file), 'utf8').split('const localVarPath = `').slice(1);
    for (const chunk of chunks) {
      const template = chunk.slice(0, chunk.indexOf('`'));
      const method = /method: '([A-Z]+)'/.exec(chunk)?.[1];
      if (!method) continue;
      const query = [...chunk.matchAll(/localVarQueryParameter\['([^']+)'\]/g)].map((m) => m[1]);
      ops.push({ method, template: normalise(template), query: [...new Set(query)], source: `@jellyfin/sdk ${file}` });
    }
  }
  return ops;
}

export function plexOperations(): Operation[] {
  const dir = join(dirname(require.resolve('@lukehagar/plexjs/package.json')), 'src/funcs');
  const ops: Operation[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    const template = /pathToFunc\("([^"]+)"\)/.exec(text)?.[1];
    const method = /method: "([A-Z]+)"/.exec(text)?.[1];
    if (!template || !method) continue;
    const query = /encodeFormQuery\(\{([\s\S]*?)\}\)/.exec(text);
    ops.push({ method, template: normalise(template), query: query ? [...query[1].matchAll(/"([^"]+)":/g)].map((m) => m[1]) : [], source: `@lukehagar/plexjs ${file}` });
  }
  return ops;
}

/**
 * Why `request` is not an operation of `ops` (undefined when it is one): no such route, another method, or query
 * names the operation does not take. `caseless`: the server binds query names ignoring case (ASP.NET Core).
 */
export function mismatch(request: OurRequest, ops: Operation[], caseless: boolean): string | undefined {
  const fold = (s: string) => (caseless ? s.toLowerCase() : s);
  const routes = ops.filter((o) => o.template === normalise(request.template));
  if (routes.length === 0) return `no operation has the route ${request.template}`;
  const same = routes.filter((o) => o.method === request.method);
  if (same.length === 0) return `${request.template} is ${routes.map((o) => o.method).join('/')} in the client, not ${request.method}`;
  const best = same.map((o) => ({ o, missing: request.query.filter((q) => !o.query.map(fold).includes(fold(q))) })).sort((a, b) => a.missing.length - b.missing.length)[0];
  return best.missing.length ? `${request.method} ${request.template} takes no ${best.missing.join(', ')} (${best.o.source})` : undefined;
}
