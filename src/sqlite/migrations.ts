// Brings one component's tables in the service's SQLite file up to date: each component ('queue', 'drive') has an
// append-only list of steps, and the version each component reached is kept in one table, schema_versions.
import type Database from 'better-sqlite3';

export interface Component {
  /** The key in schema_versions. */
  name: string;
  /**
   * Step i migrates from version i to i + 1: SQL, or a function for a step SQL alone cannot say (it runs in the
   * step's transaction like the SQL). Append only; never edit a released step.
   */
  steps: readonly (string | ((db: Database.Database) => void))[];
  /** The refusal for a file written by a newer scanrelay: says what to do. */
  tooNew(found: number, known: number): string;
  /**
   * Where releases before schema_versions kept this component's version, read once when the component has no row
   * yet (and removed there if it was a table of its own). 0 when the component was never set up.
   */
  adoptLegacy(db: Database.Database): number;
  /** Runs in each step's transaction with the version reached (the queue keeps PRAGMA user_version in step). */
  mirror?(db: Database.Database, version: number): void;
}

const VERSIONS_TABLE = 'CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)';

/** The version recorded for a component, or undefined before it was first migrated. */
export function recordedVersion(db: Database.Database, component: string): number | undefined {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_versions'").get();
  if (!exists) return undefined;
  const row = db.prepare('SELECT version FROM schema_versions WHERE component = ?').get(component) as { version: number } | undefined;
  return row?.version;
}

/** Runs the component's missing steps, each in its own transaction with its version. Safe to call on every open. */
export function migrate(db: Database.Database, c: Component): void {
  const known = c.steps.length;
  let start = recordedVersion(db, c.name);
  if (start === undefined) {
    // Adopting a legacy version writes; a refusal inside rolls it back, so a newer release finds the file as it left it.
    start = db
      .transaction((): number => {
        db.exec(VERSIONS_TABLE);
        const recorded = recordedVersion(db, c.name);
        if (recorded !== undefined) return recorded;
        const adopted = c.adoptLegacy(db);
        if (adopted > known) throw new Error(c.tooNew(adopted, known));
        db.prepare('INSERT INTO schema_versions (component, version) VALUES (?, ?)').run(c.name, adopted);
        return adopted;
      })
      .immediate();
  }
  if (start > known) throw new Error(c.tooNew(start, known));
  const record = db.prepare('UPDATE schema_versions SET version = ? WHERE component = ?');
  for (let v = start; v < known; v++) {
    db.transaction(() => {
      // Another process opening the same file may have taken this step meanwhile.
      if ((recordedVersion(db, c.name) ?? 0) > v) return;
      const step = c.steps[v];
      if (typeof step === 'string') db.exec(step);
      else step(db);
      record.run(v + 1, c.name);
      c.mirror?.(db, v + 1);
    }).immediate();
  }
}
