// Preloaded with --import: this process behaves as a Node that ignores V8 flags set after start (which Node
// documents as unsupported), so the idle trim's collector cannot be made (test/log/idle-trim.test.ts).
import { syncBuiltinESMExports } from 'node:module';
import v8 from 'node:v8';

v8.setFlagsFromString = () => {};
// ES modules that import { setFlagsFromString } from 'node:v8' see the stand-in too.
syncBuiltinESMExports();
