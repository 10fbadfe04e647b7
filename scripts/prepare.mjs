// npm's `prepare` step in a checkout: builds dist/ after `npm ci` or `npm install`. Skipped when `npx scanrelay`
// (npm exec) is what runs it: npm links the checkout into npx's cache and runs `prepare` there, and a build then
// would replace dist/ under a relay already running from it (its chunks load when first needed).
import { spawnSync } from 'node:child_process';

if (process.env.npm_command !== 'exec') {
  // npm_execpath: the npm that runs this script, whatever PATH holds.
  const npm = process.env.npm_execpath;
  const built = npm ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' }) : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: true });
  process.exitCode = built.status ?? 1;
}
