// The ARR entries over a relay's life: the connected apps made at start when ARR has entries (connected.ts loads only
// then), made later when `scanrelay connect` adds the first one, and brought to the config file's ARR when it is
// read again (POST /api/<SERVER_PASS>/arr/reload), one reading at a time: two at once would each start the app the
// other starts.
import type { ArrEntry } from '../config/arr-schema.js';
import type { Logger } from '../log/logger.js';
import type { AppsUpdate, ConnectedApps } from './connected.js';

export class ArrEntries {
  private apps: ConnectedApps | undefined;
  private listening = false;
  private reading: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly connect: (entries: readonly ArrEntry[]) => Promise<ConnectedApps>,
    private readonly logger: Logger,
    /** Told of every reading (the reconcile audits the entries as read). */
    private readonly onRead: (entries: readonly ArrEntry[]) => void,
  ) {}

  static async open(entries: readonly ArrEntry[], connect: (entries: readonly ArrEntry[]) => Promise<ConnectedApps>, logger: Logger, onRead: (entries: readonly ArrEntry[]) => void): Promise<ArrEntries> {
    const e = new ArrEntries(connect, logger, onRead);
    if (entries.length) e.apps = await connect(entries);
    return e;
  }

  /** The connected apps; undefined while ARR has had no entry. */
  get current(): ConnectedApps | undefined {
    return this.apps;
  }

  start(): void {
    this.listening = true;
    this.apps?.start();
  }

  async stop(): Promise<void> {
    await this.apps?.stop();
  }

  reload(read: () => readonly ArrEntry[]): Promise<AppsUpdate> {
    const next = this.reading.then(() => this.reread(read));
    this.reading = next.catch(() => undefined);
    return next;
  }

  private async reread(read: () => readonly ArrEntry[]): Promise<AppsUpdate> {
    const entries = read();
    if (!this.apps && entries.length === 0) return { added: [], changed: [], removed: [], unchanged: [] };
    if (!this.apps) {
      this.apps = await this.connect([]);
      if (this.listening) this.apps.start();
    }
    const update = await this.apps.update(entries);
    this.onRead(entries);
    const said = (['added', 'changed', 'removed'] as const).filter((k) => update[k].length).map((k) => `${k} ${update[k].join(', ')}`);
    this.logger.info({ ...update }, `ARR read again from the config file: ${said.join('; ') || 'nothing changed'}.`);
    return update;
  }
}
