// npm's `prepare` step in a checkout: on a Node without Node-API 10 (Node 20) the SQLite module for it
// (scripts/sqlite-node20.mjs; nothing on Node 22.14 and later) and, at the same time, dist/ is built, after `npm ci` or
// `npm install`. Skipped when `npx scanrelay` (npm exec) is what runs it: npm links the checkout into npx's cache
// and runs `prepare` there, and a build then would replace dist/ under a relay already running from it (its
// chunks load when first needed).
import { spawn } from 'node:child_process';
import { installNode20Sqlite } from './sqlite-node20.mjs';

if (process.env.npm_command !== 'exec') {
  // The build runs in its own process while the SQLite module compiles (the two use a core each). A failed compile
  // is said in one line and does not stop the build; a command that opens the queue says it again.
  // npm_execpath: the npm that runs this script, whatever PATH holds.
  const npm = process.env.npm_execpath;
  const build = npm ? spawn(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' }) : spawn('npm', ['run', 'build'], { stdio: 'inherit', shell: true });
  build.on('exit', (code) => (process.exitCode = code ?? 1));
  installNode20Sqlite();
}
