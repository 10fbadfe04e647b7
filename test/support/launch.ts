// How the launchers start the server's Node, read from the one place that states it: package.json's `start`
// script (its Node flags), which the image and the systemd unit repeat (test/deploy/deploy.test.ts keeps them in
// step), and the malloc variable the image and the unit set. Tests and benchmarks start servers the same way.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };

/** The Node flags of `npm start` (the heap options), in order. */
export const NODE_FLAGS: readonly string[] = pkg.scripts.start.split(' ').filter((word) => word.startsWith('--'));

/** The malloc setting the image and the unit put in the environment (docs/configuration.md, "How Node is started"). */
export const MALLOC_ENV = { MALLOC_TRIM_THRESHOLD_: '131072' } as const;
