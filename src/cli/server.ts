// `scanrelay server`: run the relay (HTTP intake, queue processor) until SIGTERM.
import { banner } from './banner.js';
import { Command } from 'commander';
import { tokenFilePath } from '../drive/settings.js';
import { createLogger, flushLogs, type Logger } from '../log/logger.js';
import { logFatalErrors } from '../log/fatal.js';
import { sizeInBytes } from '../log/file.js';
import { octal, tightenPrivate } from '../private-files.js';
import { loadConfig, secretsOf } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { checkQueueFile, damagedLine, EX_CONFIG } from '../queue/file-check.js';
import { QueueLockedError } from '../queue/lock.js';
import type { Service } from '../service.js';
import { globalFlags, loadContext } from './context.js';

export function serverCommand(): Command {
  return new Command('server')
    .description('run the relay: receive webhooks and manual requests, queue them, scan the media servers')
    .option('--port <port>', 'listen on this port instead of SERVER_PORT', (v) => Number(v))
    .option('--host <address>', 'listen on this address instead of SERVER_IP')
    .action(async (opts: { port?: number; host?: string }, cmd: Command) => {
      const { settings, loaded, logger, configDir } = loadContext(globalFlags(cmd), { buffered: true });
      // From the first line on: an error nothing handled is the log file's last line, not only stderr's.
      logFatalErrors(logger);
      const { config } = loaded;
      // Before anything touches the file (permissions, lock, migrations): a bad queue file stops the start, as is.
      const checked = checkQueueFile(settings.queuefile);
      if (checked.state === 'refused') refuseQueueFile(checked.line, logger, settings.logfile, loaded.config);
      tightenAtStart([settings.queuefile, `${settings.queuefile}-wal`, `${settings.queuefile}-shm`, settings.logfile, tokenFilePath(config.GOOGLE, configDir)], logger);
      let service: Service;
      try {
        // `scanrelay connect` asks the running relay to read its ARR entries again: the file as it is now, never written.
        const readArr = () => loadConfig(loaded.path, process.env, { write: false }).config.ARR;
        // Loaded here, not with the command: every other command lists `server` in its help and never runs the relay.
        const { createService } = await import('../service.js');
        service = await createService({ config, queuefile: settings.queuefile, logger, configDir, readArr });
      } catch (err) {
        // Damage the quick check cannot see shows when the queue is read; it is still the file's fault.
        if (isDamage(err)) refuseQueueFile(damagedLine(settings.queuefile, (err as Error).message), logger, settings.logfile, loaded.config);
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
        if (isDamage(err)) {
          await service.close().catch(() => undefined);
          refuseQueueFile(damagedLine(settings.queuefile, (err as Error).message), logger, settings.logfile, loaded.config);
        }
        const inUse = (err as { code?: string }).code === 'EADDRINUSE';
        // A value read from a _FILE is in no message: the address is named by its variable, also in Node's error.
        const ipFile = opts.host === undefined ? loaded.fromFiles.find((f) => f.key === 'SERVER_IP') : undefined;
        const where = ipFile ? `the address in ${ipFile.variable}` : host;
        const said = ipFile && host ? (err as Error).message.split(host).join(where) : (err as Error).message;
        // Not "change SERVER_PORT": that advice starts a second relay beside the first, and both scan everything.
        logger.error(
          inUse
            ? `Could not listen on ${where}:${port}: another program uses that port. If it is scanrelay, it is already running (curl http://127.0.0.1:${port}/health): stop it rather than start a second one. If it is another program, set SERVER_PORT to a free port.`
            : `Could not listen on ${where}:${port}: ${said}.`,
        );
        await service.close();
        flushLogs(logger);
        process.exit(1);
      }
      logger.info({ queuefile: settings.queuefile, targets: service.targets.map((t) => t.name) }, `Listening on ${url.replace(/\/\/[^/]+/, `//${host}:${new URL(url).port}`)}`);
      // On the console only, at every start: the log file never holds the secret.
      flushLogs(logger);
      // A SERVER_PASS kept in a secret file stays there: the banner names the file instead.
      const passFile = loaded.fromFiles.find((f) => f.key === 'SERVER_PASS');
      const pass = passFile ? `<SERVER_PASS from ${passFile.file}>` : config.SERVER_PASS;
      process.stdout.write(banner({ url, host, pass, manual: config.SERVER_ALLOW_MANUAL_SCAN, files: settings }));
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

/**
 * The queue file cannot be used: one line on stderr and in the log file, then exit 78 (EX_CONFIG), which the
 * systemd unit does not restart on (RestartPreventExitStatus=78): restarting every 5 s cannot mend a file.
 */
function refuseQueueFile(line: string, logger: Logger, logfile: string, config: Config): never {
  flushLogs(logger);
  process.stderr.write(`${line}\n`);
  if (logfile !== '-') {
    // The console already has the line; this logger writes the log file only.
    const fileOnly = createLogger({ level: 'error', file: logfile, console: null, secrets: secretsOf(config), rotate: { maxBytes: sizeInBytes(config.LOG_MAX_SIZE), keep: config.LOG_KEEP } });
    fileOnly.error({ exitCode: EX_CONFIG }, line);
  }
  process.exit(EX_CONFIG);
}

const isDamage = (err: unknown) => /^SQLITE_(CORRUPT|NOTADB)/.test((err as { code?: string })?.code ?? '');

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
