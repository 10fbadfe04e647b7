// The whole `scanrelay` program: every command. Loaded by index.ts for any command but `server`, so the server
// never loads the wizard, the importers, backup and the rest (docs/performance.md, memory).
import { Command } from 'commander';
import { addGlobalOptions, globalFlags, loadContext } from './context.js';
import { baseProgram } from './base.js';
import { scanCommand } from './scan.js';
import { rcloneCommand } from './rclone.js';
import { authorizeCommand } from './authorize.js';
import { buildCachesCommand } from './build-caches.js';
import { Queue } from '../queue/store.js';
import { systemClock } from '../clock.js';
import { scannerSettingsFrom } from '../targets/plex/scanner-target.js';
import { scannerSections } from '../targets/plex/locations.js';
import { isInside } from '../paths/folder.js';
import { explainCommand } from './explain.js';
import { importAutoscanCommand } from './import-autoscan.js';
import { importAutopulseCommand } from './import-autopulse.js';
import { serverCommand } from './server.js';
import { sectionsCommand } from './sections.js';
import { updateConfigCommand } from './update-config.js';
import { backupCommand, restoreCommand } from './backup.js';
import { checkCommand } from './check.js';
import { notifyTestCommand } from './notify-test.js';
import { connectCommand } from './connect.js';
import { reconcileCommand } from './reconcile.js';

export function buildProgram(): Command {
  const program = baseProgram();
  program.addCommand(serverCommand());
  program.addCommand(sectionsCommand());
  program.addCommand(explainCommand());
  program.addCommand(importAutoscanCommand());
  program.addCommand(importAutopulseCommand());
  program.addCommand(backupCommand());
  program.addCommand(restoreCommand());
  program.addCommand(checkCommand());
  program.addCommand(notifyTestCommand());
  program.addCommand(connectCommand());
  program.addCommand(reconcileCommand());
  program.addCommand(
    scanCommand({
      settings: () => scannerSettingsFrom(loadContext(globalFlags(program), { consoleLog: false }).loaded.config),
      findSections: async (path) => {
        const { config } = loadContext(globalFlags(program), { consoleLog: false }).loaded;
        const sections = await scannerSections(config);
        return sections.flatMap((s) => s.locations.map((location) => ({ id: s.id, title: s.title, location }))).filter((s) => isInside(path, s.location));
      },
    }),
  );
  program.addCommand(updateConfigCommand());
  // Drive commands need the config and logger only when they run (after the flags are parsed).
  let context: ReturnType<typeof loadContext> | undefined;
  // Plain sentences on the console, like every other command (the log file keeps the structured lines).
  const ctx = () => (context ??= loadContext(globalFlags(program), { consoleLog: 'plain' }));
  const driveConfig = () => ({ google: ctx().loaded.config.GOOGLE, configDir: ctx().configDir });
  program.addCommand(
    authorizeCommand({
      loadConfig: driveConfig,
      get logger() {
        return ctx().logger;
      },
    }),
  );
  program.addCommand(
    buildCachesCommand({
      loadConfig: driveConfig,
      openDatabase: () => new Queue(ctx().settings.queuefile, systemClock, { delayMs: 0, busyTimeoutMs: 5_000 }).db,
      get logger() {
        return ctx().logger;
      },
    }),
  );
  // The rclone command has its own --config (the rclone.conf), so it gets no global flags.
  const rclone = rcloneCommand();
  // plex_autoscan's systemd unit passes global flags after the command (`server --loglevel=INFO`).
  for (const cmd of program.commands) addGlobalOptions(cmd);
  program.addCommand(rclone);
  return program;
}
