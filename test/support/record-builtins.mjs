// `node --import <this file>`: at exit, writes the Node built-in modules the process loaded (process.moduleLoadList)
// to the file named by BUILTINS_RECORD, one a line (test/deploy/bundle.test.ts: what an idle server loads).
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  writeFileSync(process.env.BUILTINS_RECORD, `${builtins.join('\n')}\n`);
});
