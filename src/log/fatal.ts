// The last line of a server that stops on an error nothing handled: written to the log file (and the console),
// scrubbed like every line, synchronously before the process exits, so a relay that dies under systemd or Docker
// says why in its own log and not only on a stderr nobody keeps.
//
// What reaches here: an exception nothing caught (`uncaughtException`) and a promise rejected with no handler
// (`unhandledRejection`), among them the RangeErrors V8 throws when a Map or Set passes 2^24 entries or a string or
// array its longest length. What cannot: V8 running out of heap ("Reached heap limit … JavaScript heap out of
// memory") aborts the process from C++ without running another line of JavaScript, so no handler sees it; only
// bounding what servers can make the relay hold prevents it (src/targets/plex/follow/scan-items.ts, docs/security.md).
import { flushLogs, type Logger } from './logger.js';

/** Node's own exit status for an uncaught error: systemd's Restart=on-failure starts the relay again. */
export const FATAL_EXIT = 1;

/** From now on an error nothing handled is logged as fatal and ends the process (`exit` for tests). */
export function logFatalErrors(logger: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  const fatal = (what: string) => (err: unknown) => {
    try {
      const e = err instanceof Error ? err : new Error(String(err));
      logger.fatal({ err: { type: e.name, message: e.message, stack: e.stack } }, `Stopping: ${what}: ${e.message}`);
      flushLogs(logger);
    } finally {
      exit(FATAL_EXIT);
    }
  };
  process.on('uncaughtException', fatal('an error nothing handled'));
  process.on('unhandledRejection', fatal('a promise rejected with nothing to handle it'));
}
