// The control API's OpenAPI document is made by src/server/openapi.ts from the routes as registered: here it is
// compared with what @fastify/swagger (a devDependency, the generator it replaces) makes of the same routes, on
// the control API itself and on made-up routes with every shape zod writes (null, nullable objects, unions).
import swagger from '@fastify/swagger';
import Fastify, { type FastifyPluginAsync } from 'fastify';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { controlApiRoutes } from '../../src/server/control-api.js';
import type { AppDeps } from '../../src/server/deps.js';
import { lazySchemaController } from '../../src/server/lazy-compilers.js';
import { openapiDocument, OPENAPI_INFO, type DocumentedRoute } from '../../src/server/openapi.js';
import { jsonSchema, secretParams } from '../../src/server/schemas.js';

/** Ours and swagger's document of one plugin's routes, registered once in one app. */
async function bothDocuments(plugin: FastifyPluginAsync<AppDeps>): Promise<{ ours: unknown; swaggers: unknown }> {
  const app = Fastify({ logger: false, schemaController: lazySchemaController });
  await app.register(swagger, { openapi: OPENAPI_INFO });
  const routes: DocumentedRoute[] = [];
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => void routes.push(route));
    // Registration reads no dependency but `explain` (whether the doctor's route exists); handlers never run here.
    await scope.register(plugin, { explain: async () => undefined } as unknown as AppDeps);
  });
  await app.ready();
  try {
    return { ours: openapiDocument(routes), swaggers: app.swagger() };
  } finally {
    await app.close();
  }
}

/** Routes whose schemas use what zod writes and the control API does not (yet). */
const shapes: FastifyPluginAsync<AppDeps> = async (app) => {
  const item = z.object({ id: z.int(), name: z.nullable(z.string()) });
  app.post('/shapes/:kind/:id', {
    schema: {
      summary: 'every shape',
      description: 'a route with a description',
      tags: ['made-up'],
      params: jsonSchema(z.object({ kind: z.enum(['a', 'b']), id: z.string() }), 'input'),
      querystring: jsonSchema(z.object({ page: z.optional(z.int()), q: z.string().check(z.meta({ description: 'what to find' })) }), 'input'),
      body: jsonSchema(z.object({ item: z.nullable(item), either: z.union([z.string(), z.number(), z.null()]), nothing: z.null(), list: z.array(item) }), 'input'),
      response: {
        200: jsonSchema(z.object({ ok: z.literal(true), item: z.nullable(item), described: z.nullable(item).check(z.meta({ description: 'maybe an item' })) })),
        '4xx': jsonSchema(z.object({ error: z.string() }).check(z.meta({ description: 'a refusal' }))),
        204: jsonSchema(z.null()),
      },
    },
  }, async () => ({}));
  app.get('/shapes/:name/bare', async () => ({}));
  app.get('/shapes/hidden', { schema: { hide: true, params: jsonSchema(secretParams(), 'input') } }, async () => ({}));
};

describe("the control API's OpenAPI document", () => {
  it("is @fastify/swagger's document of the control API's routes, key for key", async () => {
    const { ours, swaggers } = await bothDocuments(controlApiRoutes);
    expect(Object.keys((ours as { paths: object }).paths)).toContain('/api/{secret}/explain');
    expect(ours).toEqual(swaggers);
  });

  it("is @fastify/swagger's document for every shape zod writes: null, nullable objects, unions, no schema", async () => {
    const { ours, swaggers } = await bothDocuments(shapes);
    expect(Object.keys((ours as { paths: object }).paths)).toEqual(['/shapes/{kind}/{id}', '/shapes/{name}/bare']);
    expect(ours).toEqual(swaggers);
  });
});
