// The OpenAPI document of the control API (/api/<SERVER_PASS>/openapi.json), made by @fastify/swagger from the
// routes' schemas in a throwaway app. The bundle does not run this: scripts/bundle.mjs calls it at build time and
// puts the finished document in its place, in a chunk loaded on the first request for it, so a running relay
// never loads @fastify/swagger (docs/performance.md, memory). From the TypeScript sources it runs on that request.
import swagger from '@fastify/swagger';
import Fastify, { type FastifyPluginAsync } from 'fastify';
import type { AppDeps } from './deps.js';
import { lazySchemaController } from './lazy-compilers.js';

export const OPENAPI_INFO = {
  openapi: '3.0.3',
  info: {
    title: 'scanrelay API',
    version: '0.1.0',
    description: 'See and steer the relay. Every path starts with /api/<SERVER_PASS>/. plex_autoscan\'s GET/POST /api/<SERVER_PASS>?cmd=queue_count is kept as it was.',
  },
};

/** The document for every control API route (control-api.ts's `controlApiRoutes`, the explain route included). */
export async function openapiDocument(controlApiRoutes: FastifyPluginAsync<AppDeps>): Promise<unknown> {
  const app = Fastify({ logger: false, schemaController: lazySchemaController });
  await app.register(swagger, { openapi: OPENAPI_INFO });
  // Registration reads no dependency but `explain` (whether the doctor's route exists); handlers never run here.
  await app.register(controlApiRoutes, { explain: async () => undefined } as unknown as AppDeps);
  await app.ready();
  const doc = app.swagger();
  await app.close();
  return doc;
}
