// The operations of an arr app's published OpenAPI document (test/fixtures/arr-api, trimmed to the ones scanrelay
// calls), in the form test/support/sdk-operations.ts checks requests against: method, path template, query names.
import type { ArrAppType } from '../fakes/arr-app.js';
import { ownFixture } from './fixtures.js';
import type { Operation } from './sdk-operations.js';

interface Document {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema?: { $ref?: string } }[] }>>;
  components: { schemas: Record<string, { enum?: string[]; properties?: Record<string, unknown> }>; securitySchemes?: Record<string, { name: string; in: string }> };
}

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
