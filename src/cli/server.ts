// `scanrelay server`: run the relay (HTTP intake, queue processor) until SIGTERM.
import { Command } from 'commander';
import { tokenFilePath } from '../drive/settings.js';
import { flushLogs, type Logger } from '../log.js';
import { octal, tightenPrivate } from '../private-files.js';
import { createService } from '../service.js';
import { globalFlags, loadContext } from './context.js';

export function serverCommand(): Command {
  return new Command('server')
    .description('run the relay: receive webhooks and manual requests, queue them, scan the media servers')
    .option('--port <port>', 'listen on this port instead of SERVER_PORT', (v) => Number(v))
    .option('--host <address>', 'listen on this address instead of SERVER_IP')
    .action(async (opts: { port?: number; host?: string }, cmd: Command) => {
      const { settings, loaded, logger, configDir } = loadContext(globalFlags(cmd), { buffered: true });
      const { config } = loaded;
      tightenAtStart([settings.queuefile, `${settings.queuefile}-wal`, `${settings.queuefile}-shm`, settings.logfile, tokenFilePath(config.GOOGLE, configDir)], logger);
      const service = await createService({ config, queuefile: settings.queuefile, logger, configDir });
      let url: string;
      try {
        url = await service.listen(opts.port ?? config.SERVER_PORT, opts.host ?? config.SERVER_IP);
      } catch (err) {
        logger.error(`Could not listen on ${opts.host ?? config.SERVER_IP}:${opts.port ?? config.SERVER_PORT}: ${(err as Error).message}. Is another process using the port? Change SERVER_PORT.`);
        await service.close();
        process.exit(1);
      }
      logger.info({ queuefile: settings.queuefile, targets: service.targets.map((t) => t.name) }, `Listening on ${url.replace(/\/\/[^/]+/, `//${config.SERVER_IP}:${new URL(url).port}`)}`);
      // Printed once, on the console only: the log file never holds the secret.
      flushLogs(logger);
      process.stdout.write(`\nscanrelay is running. Webhook and manual-scan URL:\n  ${url}/${config.SERVER_PASS}\nHealth: ${url}/health\n\n`);
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info(`${signal} received: no new requests; finishing scans in flight.`);
        await service.close();
        logger.info('Stopped cleanly.');
        process.exit(0);
      };
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGINT', () => void stop('SIGINT'));
    });
}

/** Files left readable by others (by an older version, a copy, a umask) are tightened: one INFO line says which. */
function tightenAtStart(paths: string[], logger: Logger): void {
  const { tightened, failed } = tightenPrivate(paths);
  if (tightened.length) {
    logger.info(
      { files: tightened.map((t) => t.path) },
      `Tightened file permissions (they hold library paths or tokens): ${tightened.map((t) => `${t.path} ${octal(t.from)} -> ${octal(t.to)}`).join(', ')}.`,
    );
  }
  for (const f of failed) {
    logger.warn({ file: f.path }, `Could not tighten the permissions of '${f.path}' (${f.error}): run \`chmod 600 '${f.path}'\` as its owner.`);
  }
}
