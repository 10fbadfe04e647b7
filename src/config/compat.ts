// Keys accepted so a plex_autoscan config.json works unchanged but that scanrelay does not need: the start-up log
// says what each does instead (docs/configuration.md marks them "accepted for compatibility").
import type { Config } from './schema.js';

export interface CompatNote {
  level: 'debug' | 'info';
  key: string;
  text: string;
}

export function compatibilityNotes(config: Config): CompatNote[] {
  const notes: CompatNote[] = [];
  notes.push({
    // Worth a visible line only when the file asks for what no longer exists: a queue that forgets.
    level: config.SERVER_USE_SQLITE ? 'debug' : 'info',
    key: 'SERVER_USE_SQLITE',
    text: `SERVER_USE_SQLITE (${config.SERVER_USE_SQLITE}) is accepted for compatibility and has no effect: requests are always kept in the queue database.`,
  });
  if (Object.keys(config.RCLONE.CRYPT_MAPPINGS).length > 0 && config.RCLONE.BINARY) {
    notes.push({
      level: 'info',
      key: 'RCLONE.BINARY',
      text: `RCLONE.BINARY ('${config.RCLONE.BINARY}') is accepted for compatibility and not run: scanrelay decodes rclone crypt names itself.`,
    });
  }
  return notes;
}
