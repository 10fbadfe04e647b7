// Fastify's own schema compilers (ajv through @fastify/ajv-compiler, fast-json-stringify through
// @fastify/fast-json-stringify-compiler), built the first time a route's schema is used, not at start.
//
// Fastify compiles every route's validators and serializers when the app gets ready: an Ajv instance with its
// meta-schemas, and a generated function per schema and status code (the control API has dozens). A relay
// that sits idle answers none of those routes, yet kept the memory of that compiling for good
// (docs/performance.md, "Idle memory"). Here each compiled function is a stand-in that builds the real one on its first
// call, with the same compiler and options Fastify would have used; nothing else changes (same validation, same
// errors, same serialized output).
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/** What Fastify calls a compilers factory's builders with: the shared schemas and the ajv / serializer options. */
type Builder<F> = (externalSchemas: unknown, options: unknown) => (routeSchema: unknown) => F;

/**
 * A compiler package, from fastify's own folder in node_modules, where npm installs it: the same from the sources
 * and from the bundle, which leaves these packages out (scripts/bundle.mjs: their source would be read at every
 * start for code an idle relay never runs).
 */
function load(name: '@fastify/ajv-compiler' | '@fastify/fast-json-stringify-compiler'): () => (...args: unknown[]) => unknown {
  return createRequire(createRequire(import.meta.url).resolve('fastify'))(name);
}

const buildValidator: Builder<ValidateFn> = (externalSchemas, ajvOptions) => {
  let compiler: ((routeSchema: unknown) => ValidateFn) | undefined;
  const real = () => (compiler ??= load('@fastify/ajv-compiler')()(externalSchemas, ajvOptions) as (routeSchema: unknown) => ValidateFn);
  return (routeSchema) => {
    let validate: ValidateFn | undefined;
    // Fastify reads `errors` off the function it was given after a failed call: the stand-in carries them.
    const standIn = ((data: unknown) => {
      validate ??= real()(routeSchema);
      const result = validate(data);
      standIn.errors = validate.errors;
      return result;
    }) as ValidateFn;
    return standIn;
  };
};

const buildSerializer: Builder<(data: unknown) => string> = (externalSchemas, serializerOptions) => {
  let compiler: ((routeSchema: unknown) => (data: unknown) => string) | undefined;
  const real = () =>
    (compiler ??= load('@fastify/fast-json-stringify-compiler')()(externalSchemas, serializerOptions) as (routeSchema: unknown) => (data: unknown) => string);
  return (routeSchema) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= real()(routeSchema))(data);
  };
};

type ValidateFn = ((data: unknown) => unknown) & { errors?: unknown };

/** Fastify's `schemaController` option: its default compilers, built when first needed. */
export const lazySchemaController = { compilersFactory: { buildValidator, buildSerializer } } as unknown as NonNullable<FastifyServerOptions['schemaController']>;
