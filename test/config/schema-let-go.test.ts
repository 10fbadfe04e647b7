// The config's zod schema exists while a config is read and is let go after: an idle relay holds no schema object
// (each carries its own methods; kept, they held about 2 MB of an idle relay, docs/performance.md "Idle memory").
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { configSchema, targetSchema } from '../../src/config/schema.js';
import { targetKinds } from '../../src/targets/kinds.js';

// V8's gc() with no options: the one that also clears weak references (gc({ type: 'major' }) keeps their targets).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Whether what `make` returns outlives its use (a full collection later). */
async function outlives(make: () => object, use: (made: object) => void): Promise<boolean> {
  let ref: WeakRef<object> | undefined;
  (() => {
    const made = make();
    use(made);
    ref = new WeakRef(made);
  })();
  // A WeakRef holds its target until the current job ends; a few turns and collections, for a loaded machine.
  for (let turn = 0; turn < 5 && ref?.deref() !== undefined; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    collect();
  }
  return ref?.deref() !== undefined;
}

describe('the config schema is made for one reading and let go', () => {
  it('each reading gets its own schema, and nothing holds it after the parse', async () => {
    expect(configSchema()).not.toBe(configSchema());
    const entry = { NAME: 'jf', TYPE: 'jellyfin', URL: 'http://127.0.0.1:8096', TOKEN: 't' };
    expect(await outlives(configSchema, (s) => (s as ReturnType<typeof configSchema>).parse({ SERVER_PASS: 'a-secret', TARGETS: [entry] }))).toBe(false);
    expect(await outlives(targetSchema, (s) => (s as ReturnType<typeof targetSchema>).parse(entry))).toBe(false);
  });

  it("a kind's own keys are made anew each time, so no kind holds a schema", async () => {
    for (const kind of Object.values(targetKinds)) expect(await outlives(() => kind.keys(), () => {})).toBe(false);
  });

});
