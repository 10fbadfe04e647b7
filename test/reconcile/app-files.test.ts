// What each app has, read as src/reconcile/app-files.ts reads it from the model apps: every request an operation of
// that app's own OpenAPI document (test/fixtures/arr-api), the key in X-Api-Key; every file listed, whichever kind.
import { afterEach, describe, expect, it } from 'vitest';
import { arrApp } from '../../src/arr/apps.js';
import { arrClient } from '../../src/arr/client.js';
import { ManualClock } from '../../src/clock.js';
import { appFiles, fileRequests } from '../../src/reconcile/app-files.js';
import { ARR_KEYS } from '../arr/harness.js';
import { FakeArrApp } from '../fakes/arr-app.js';
import { ARR_DOCUMENTS, arrOperations, asOperation } from '../support/arr-operations.js';
import { mismatch } from '../support/sdk-operations.js';

const TYPES = ARR_DOCUMENTS;

let app: FakeArrApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

describe.each(TYPES)('%s', (doc, type, version) => {
  const arr = arrApp(type, version);
  const ops = arrOperations(doc);

  it.each(fileRequests(arr).map((r) => [`${r.method} ${r.template}`, r] as const))('%s is an operation of its document', (_, r) => {
    expect(mismatch({ method: r.method, template: arr.api + r.template, query: r.query, from: 'src/reconcile/app-files.ts' }, ops, true)).toBeUndefined();
  });

  it('every file of every item is read, each request an operation of the document with the key in X-Api-Key', async () => {
    app = await new FakeArrApp(doc, ARR_KEYS[doc]).start();
    const one = arr.name === 'radarr';
    const files: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const id = app.addItem(`/media/Item ${i}`);
      for (let f = 1; f <= (one ? 1 : 2); f++) {
        const file = `/media/Item ${i}/File ${f}.mkv`;
        app.addFile(id, file);
        files.push(file);
      }
    }
    // An item without a file, as the apps list one whose files are not there yet.
    app.addItem('/media/Empty');
    const client = arrClient({ NAME: doc, TYPE: type, URL: app.url, API_KEY: app.apiKey, CATCH_UP_INTERVAL: 300, RECONCILE_INTERVAL: 0 }, { clock: new ManualClock() });
    const seen: [number, number][] = [];
    expect((await appFiles(client, arr, (done, total) => seen.push([done, total]))).sort()).toEqual(files.sort());
    expect(seen.at(-1)).toEqual([4, 4]);
    expect(app.requests.length).toBe(one ? 1 : 5);
    for (const r of app.requests) {
      expect(mismatch(asOperation(r, 'sent'), ops, true), `${r.method} ${r.path}`).toBeUndefined();
      expect(r.headers['x-api-key']).toBe(app.apiKey);
      expect(r.path + JSON.stringify(r.query)).not.toContain(app.apiKey);
    }
  });
});
