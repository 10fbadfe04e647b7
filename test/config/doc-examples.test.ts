// The TARGETS examples in the README and docs/targets.md are real configs: each loads through the schema and
// builds the targets it shows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { ManualClock } from '../../src/clock.js';
import { buildTargets } from '../../src/targets/build.js';
import { configFiles } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';

const files = configFiles('scanrelay-doc-examples-');
afterAll(() => files.cleanup());

/** JSON code blocks that mention TARGETS; a bare `"TARGETS": [...]` fragment is wrapped into an object. */
function targetExamples(doc: string): string[] {
  const text = readFileSync(join(repoRoot, doc), 'utf8');
  return [...text.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1].trim())
    .filter((block) => block.includes('"TARGETS"'))
    .map((block) => (block.startsWith('{') ? block : `{${block}}`));
}

describe.each(['README.md', 'docs/targets.md'])('TARGETS examples in %s', (doc) => {
  const examples = targetExamples(doc);
  it('has at least one', () => {
    expect(examples.length).toBeGreaterThan(0);
  });
  it.each(examples.map((e, i) => [i + 1, e]))('example %i loads and builds every target it names', (_i, example) => {
    const content = JSON.parse(example as string) as { TARGETS: { NAME: string }[] };
    const config = files.load(content);
    const names = buildTargets({ ...config, PLEX_ENABLED: false }, { clock: new ManualClock(), logger: silentLogger }).map((t) => t.name);
    expect(names).toEqual(content.TARGETS.map((t) => t.NAME));
  });
});
