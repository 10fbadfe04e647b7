// `scanrelay server`: run the relay (HTTP intake, queue processor) until SIGTERM.
import { Command } from 'commander';
import { flushLogs } from '../log.js';
import { QueueLockedError } from '../queue/lock.js';
import { createService, type Service } from '../service.js';
import { globalFlags, loadContext } from './context.js';

export function serverCommand(): Command {
  return new Command('server')
    .description('run the relay: receive webhooks and manual requests, queue them, scan the media servers')
    .option('--port <port>', 'listen on this port instead of SERVER_PORT', (v) => Number(v))
    .option('--host <address>', 'listen on this address instead of SERVER_IP')
    .action(async (opts: { port?: number; host?: string }, cmd: Command) => {
      const { settings, loaded, logger, configDir } = loadContext(globalFlags(cmd), { buffered: true });
      const { config } = loaded;
      let service: Service;
      try {
        service = await createService({ config, queuefile: settings.queuefile, logger, configDir });
      } catch (err) {
        if (!(err instanceof QueueLockedError)) throw err;
        logger.error({ queuefile: settings.queuefile, pid: err.pid }, `Not starting: ${err.message}`);
        flushLogs(logger);
        process.exit(1);
      }
      const port = opts.port ?? config.SERVER_PORT;
      const host = opts.host ?? config.SERVER_IP;
      let url: string;
      try {
        url = await service.listen(port, host);
      } catch (err) {
        const inUse = (err as { code?: string }).code === 'EADDRINUSE';
        // Not "change SERVER_PORT": that advice starts a second relay beside the first, and both scan everything.
        logger.error(
          inUse
            ? `Could not listen on ${host}:${port}: another program uses that port. If it is scanrelay, it is already running (curl http://127.0.0.1:${port}/health): stop it rather than start a second one. If it is another program, set SERVER_PORT to a free port.`
            : `Could not listen on ${host}:${port}: ${(err as Error).message}.`,
        );
        await service.close();
        flushLogs(logger);
        process.exit(1);
      }
      logger.info({ queuefile: settings.queuefile, targets: service.targets.map((t) => t.name) }, `Listening on ${url.replace(/\/\/[^/]+/, `//${config.SERVER_IP}:${new URL(url).port}`)}`);
      // On the console only, at every start: the log file never holds the secret.
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
