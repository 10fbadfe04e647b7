// The operations of an arr app's published OpenAPI document (test/fixtures/arr-api, trimmed to the ones scanrelay
// calls), in the form test/support/sdk-operations.ts checks requests against: method, path template, query names.
import type { ArrType } from '../../src/config/arr-schema.js';
import type { ArrAppType } from '../fakes/arr-app.js';
import { ownFixture } from './fixtures.js';
import type { Operation } from './sdk-operations.js';

interface Document {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema?: { $ref?: string } }[] }>>;
  components: { schemas: Record<string, { enum?: string[]; properties?: Record<string, unknown> }>; securitySchemes?: Record<string, { name: string; in: string }> };
}

/** Every app's document with the scanrelay ARR type it is and the version its model reports (test/fakes/arr-app.ts). */
export const ARR_DOCUMENTS: [ArrAppType, ArrType, string][] = [
  ['sonarr', 'sonarr', '4.0.14.2939'],
  ['radarr', 'radarr', '5.21.1.9799'],
  ['lidarr', 'lidarr', '2.11.2.4629'],
  ['readarr', 'readarr', '0.4.18.2805'],
  ['whisparr', 'whisparr', '2.0.0.1046'],
  ['whisparr-v3', 'whisparr', '3.0.0.1234'],
];

export function arrDocument(type: ArrAppType): Document {
  return ownFixture<Document>(`arr-api/${type}-openapi.json`);
}

export function arrOperations(type: ArrAppType): Operation[] {
  const doc = arrDocument(type);
  return Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      template: template.replace(/\{[^}]*\}/g, '{}'),
      query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      source: `${type}-openapi.json`,
    })),
  );
}

/** A request as a fake recorded it, in the form of an operation: numbers in the path are its parameters. */
export function asOperation(r: { method: string; path: string; query: Record<string, string> }, from: string) {
  return { method: r.method, template: r.path.replace(/\/\d+(?=\/|$)/g, '/{id}'), query: Object.keys(r.query), from };
}
