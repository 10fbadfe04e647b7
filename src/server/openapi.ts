// The OpenAPI document of the control API (/api/<SERVER_PASS>/openapi.json), made on its first request from the
// routes as the control API registered them: their URLs, summaries, tags and the JSON schemas Fastify was given
// (schemas.ts through jsonSchema()). Loaded by import() on that request, from the sources and from the bundle
// alike; nothing is made at build time. The layout is @fastify/swagger's (test/server/openapi.test.ts compares
// the two on every route), which the relay no longer loads: it brought yaml and a JSON Schema resolver in
// for this one document (docs/performance.md, "Idle memory").
import type { RouteOptions } from 'fastify';

declare module 'fastify' {
  // What a route's schema may say for this document alone; Fastify ignores these keys.
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: readonly string[];
    /** Left out of the document (the document's own route). */
    hide?: boolean;
  }
}

export const OPENAPI_INFO = {
  openapi: '3.0.3',
  info: {
    title: 'scanrelay API',
    version: '0.1.0',
    description: 'See and steer the relay. Every path starts with /api/<SERVER_PASS>/. plex_autoscan\'s GET/POST /api/<SERVER_PASS>?cmd=queue_count is kept as it was.',
  },
};

type Schema = Record<string, unknown>;
/** What the document reads of a route: what Fastify's onRoute hook hands over. */
export type DocumentedRoute = Pick<RouteOptions, 'method' | 'url' | 'schema'>;

/** The document for these routes (HEAD routes, which Fastify adds for each GET, and hidden ones left out). */
export function openapiDocument(routes: readonly DocumentedRoute[]): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    if (route.method === 'HEAD' || route.schema?.hide) continue;
    const url = route.url.replace(/:(\w+)/g, '{$1}');
    for (const method of [route.method].flat()) (paths[url] ??= {})[method.toLowerCase()] = operation(url, (route.schema ?? {}) as Schema);
  }
  return { ...OPENAPI_INFO, components: { schemas: {} }, paths };
}

function operation(url: string, schema: Schema): Schema {
  const op: Schema = {};
  for (const key of ['summary', 'tags', 'description'] as const) if (schema[key]) op[key] = schema[key];
  const parameters = [...parametersOf('query', schema.querystring), ...parametersOf('path', schema.params ?? pathParams(url))];
  if (schema.body) {
    const body = toOpenapi30(schema.body) as Schema;
    op.requestBody = { required: true, content: { 'application/json': { schema: body } }, ...(body.description ? { description: body.description } : {}) };
  }
  if (parameters.length > 0) op.parameters = parameters;
  op.responses = responsesOf(schema.response as Record<string, Schema> | undefined);
  return op;
}

/** A URL's parameters as strings, for a route that declared none. */
function pathParams(url: string): Schema | undefined {
  const names = [...url.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  return names.length > 0 ? { type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])) } : undefined;
}

/** One parameter per property of a querystring or params schema; its description beside its schema. */
function parametersOf(where: 'query' | 'path', schema: unknown): Schema[] {
  if (!schema) return [];
  const { properties = {}, required = [] } = schema as { properties?: Record<string, Schema>; required?: string[] };
  return Object.entries(properties).map(([name, property]) => {
    // `required` is the parameter's, not its schema's.
    const { description, required: _, ...rest } = toOpenapi30(property) as Schema;
    return { schema: rest, in: where, name, required: where === 'path' || required.includes(name), ...(description ? { description } : {}) };
  });
}

function responsesOf(response: Record<string, Schema> | undefined): Schema {
  if (!response) return { 200: { description: 'Default Response' } };
  return Object.fromEntries(
    Object.entries(response).map(([code, schema]) => [
      code === 'default' ? code : code.toUpperCase(),
      {
        description: schema.description ?? 'Default Response',
        ...(schema.type === 'null' ? {} : { content: { 'application/json': { schema: toOpenapi30(schema) } } }),
      },
    ]),
  );
}

/**
 * A JSON Schema (draft-07, as zod writes it) as an OpenAPI 3.0 schema: `const` is a one-value `enum`, and OpenAPI
 * 3.0 has no null type: `type: ['string', 'null']` is `type: 'string', nullable: true`, and null alone is an
 * object that can only be null.
 */
function toOpenapi30(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenapi30);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id' || key === '$schema' || key === 'definitions') continue;
    if (key === 'const') out.enum = [value];
    else if (key === 'properties') out.properties = Object.fromEntries(Object.entries(value as Schema).map(([name, s]) => [name, toOpenapi30(s)]));
    else out[key] = toOpenapi30(value);
  }
  return nullable(out);
}

const onlyNull = (s: Schema): Schema => Object.assign(s, { type: 'object', nullable: true, enum: [null] });
const isOnlyNull = (s: Schema) => s.nullable === true && Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null;

function nullable(s: Schema): Schema {
  if (s.type === 'null') return onlyNull(s);
  if (Array.isArray(s.type)) {
    const types = (s.type as string[]).filter((t) => t !== 'null');
    const withNull = types.length < s.type.length;
    if (types.length === 0) return onlyNull(s);
    if (types.length === 1) {
      s.type = types[0];
      if (withNull) s.nullable = true;
    } else {
      delete s.type;
      s.anyOf = [...types.map((type) => ({ type })), ...(withNull ? [onlyNull({})] : [])];
    }
  }
  // anyOf/oneOf of one type and null (a nullable object): that type, nullable.
  for (const union of ['anyOf', 'oneOf'] as const) {
    const members = s[union];
    if (!Array.isArray(members)) continue;
    const others = (members as Schema[]).filter((m) => !isOnlyNull(m));
    if (others.length !== 1 || others.length === members.length || !('type' in others[0])) continue;
    if (Object.keys(others[0]).some((key) => key !== 'nullable' && key in s)) continue;
    delete s[union];
    Object.assign(s, others[0], { nullable: true });
  }
  return s;
}
