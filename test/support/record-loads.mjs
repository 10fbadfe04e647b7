// `node --import <this file>`: appends the URL of every ES module file the process loads to the file named by
// LOADS_RECORD (tests of what the bundle's server loads, test/deploy/bundle.test.ts).
import { register } from 'node:module';

register('./record-loads-hooks.mjs', import.meta.url);
