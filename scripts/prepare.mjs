// npm's `prepare` step in a checkout: on a Node without Node-API 10 (Node 20) the SQLite module for it
// (scripts/sqlite-node20.mjs; nothing on Node 22.14 and later), then dist/ is built, after `npm ci` or
// `npm install`. Skipped when `npx scanrelay` (npm exec) is what runs it: npm links the checkout into npx's cache
// and runs `prepare` there, and a build then would replace dist/ under a relay already running from it (its
// chunks load when first needed).
import { spawnSync } from 'node:child_process';
import { installNode20Sqlite } from './sqlite-node20.mjs';

if (process.env.npm_command !== 'exec') {
  // A failed compile is said in one line and does not stop the build; a command that opens the queue says it again.
  installNode20Sqlite();
  // npm_execpath: the npm that runs this script, whatever PATH holds.
  const npm = process.env.npm_execpath;
  const built = npm ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' }) : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: true });
  process.exitCode = built.status ?? 1;
}
