// `scanrelay check`: the test the server runs on the queue file before it listens, run by hand (after a disk
// problem, before and after a restore). Reads only; needs no config.
import { Command } from 'commander';
import { resolveSettings } from '../config/load.js';
import { checkQueueFile, describeHealthy, EX_CONFIG } from '../queue/file-check.js';
import { globalFlags } from './context.js';

export function checkCommand(): Command {
  return new Command('check')
    .description(
      `check the queue file without changing it: a readable, whole SQLite database (SQLite's quick_check) holding a scanrelay queue. ` +
        `Prints one "ok" line (size, folders queued, history lines) and exits 0, or one line saying what is wrong and what to do and exits ${EX_CONFIG}, ` +
        'as the server does at start',
    )
    .action((_opts: unknown, cmd: Command) => {
      // Only the queue file's location is needed: no config is loaded (or written) for this command.
      const { queuefile } = resolveSettings(globalFlags(cmd), process.env, process.cwd()).settings;
      const result = checkQueueFile(queuefile);
      if (result.state === 'refused') {
        process.stderr.write(`${result.line}\n`);
        process.exitCode = EX_CONFIG;
      } else if (result.state === 'missing') {
        process.stdout.write(`ok: there is no queue file at '${queuefile}' yet; the server creates it when it starts.\n`);
      } else {
        process.stdout.write(`${describeHealthy(result)}\n`);
      }
    });
}
