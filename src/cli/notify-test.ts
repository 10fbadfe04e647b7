// `scanrelay notify-test`: sends one test message to every NOTIFY entry and says, per notifier, whether it was
// taken; exits 1 when one was not (a wrong URL, a receiver down).
import { Command } from 'commander';
import { systemClock } from '../clock.js';
import { said } from '../notify/message.js';
import { Sender } from '../notify/sender.js';
import { globalFlags, loadContext } from './context.js';

export function notifyTestCommand(): Command {
  return new Command('notify-test')
    .description('send a test message to each notifier in NOTIFY (json, discord, ntfy, gotify, apprise) and print whether each took it; exit 1 if one did not')
    .action(async (_opts: unknown, cmd: Command) => {
      const { loaded, logger } = loadContext(globalFlags(cmd), { consoleLog: false });
      const notifiers = loaded.config.NOTIFY;
      if (notifiers.length === 0) {
        process.stdout.write('NOTIFY is empty: there is no notifier to test. Add one to config.json (see docs/configuration.md#notifications).\n');
        return;
      }
      let failed = 0;
      for (const notifier of notifiers) {
        const sender = new Sender(notifier, { clock: systemClock, logger });
        const ok = await sender.deliver({ event: 'test', at: Date.now(), message: said`scanrelay test notification for '${notifier.NAME}': if you can read this, ${notifier.TYPE} notifications work.` });
        if (!ok) failed++;
        // The URL is not printed: it may hold the receiver's token.
        process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${notifier.NAME} (${notifier.TYPE}): ${sender.last?.result ?? ''}\n`);
      }
      if (failed) process.exitCode = 1;
    });
}
