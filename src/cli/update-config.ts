// `scanrelay update-config`: write missing config keys with their defaults (plex_autoscan's update_config),
// and with --new-pass a fresh random SERVER_PASS.
import { Command } from 'commander';
import { writeServerPass } from '../config/load.js';
import { newServerPass } from '../config/schema.js';
import { globalFlags, loadContext } from './context.js';

export function updateConfigCommand(): Command {
  return new Command('update_config')
    .alias('update-config')
    .description('write missing config keys with their defaults (plex_autoscan compatibility) and exit')
    .option('--new-pass', 'also replace SERVER_PASS with a fresh random one (32 hex characters)')
    .addHelpText(
      'after',
      `
With --new-pass the old webhook and manual-scan URL stops working at the next start: give Sonarr, Radarr,
Lidarr and any script the new URL printed here, then restart scanrelay.`,
    )
    .action((opts: { newPass?: boolean }, cmd: Command) => {
      const { loaded } = loadContext(globalFlags(cmd));
      process.stdout.write(`${loaded.path}: ${loaded.added.length ? `added ${loaded.added.join(', ')}` : 'up to date'}\n`);
      if (!opts.newPass) return;
      const pass = newServerPass();
      try {
        writeServerPass(loaded.path, pass);
      } catch (err) {
        cmd.error(`could not write a new SERVER_PASS to ${loaded.path}: ${(err as Error).message}`, { exitCode: 1 });
      }
      const { SERVER_IP: ip, SERVER_PORT: port, SERVER_BASE_PATH: base } = loaded.config;
      const host = ip === '0.0.0.0' || ip === '::' ? '<this host>' : ip;
      // Printed, never logged: this is the one place a person reads the new secret.
      process.stdout.write(
        `Wrote a new random SERVER_PASS to ${loaded.path}.\n` +
          `Restart scanrelay, then use this URL in Sonarr, Radarr, Lidarr and your scripts:\n  http://${host}:${port}${base}/${pass}\n`,
      );
      if (loaded.envOverrides.includes('SERVER_PASS')) {
        process.stdout.write('Note: the environment variable SERVER_PASS overrides the file; change or remove it too.\n');
      }
    });
}
