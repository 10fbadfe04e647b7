// Outcomes recorded in the same turn of the event loop share one transaction; one that fails is rolled back
// alone; a commit that fails as a whole gives every write its own try.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from '../../src/sqlite/binding.js';
import { GroupCommit } from '../../src/queue/group-commit.js';

const dbs: Database.Database[] = [];
afterEach(() => dbs.splice(0).forEach((db) => db.open && db.close()));

function open() {
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'scanrelay-group-')), 'q.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (v TEXT UNIQUE)');
  dbs.push(db);
  // Counts transactions begun outside any other: the commits.
  let commits = 0;
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...a: unknown[]) => unknown) => {
    const tx = transaction(fn);
    return ((...args: unknown[]) => {
      if (!db.inTransaction) commits++;
      return tx(...args);
    }) as unknown as ReturnType<typeof db.transaction>;
  }) as typeof db.transaction;
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const values = () => db.prepare<[], { v: string }>('SELECT v FROM t ORDER BY v').all().map((r) => r.v);
  return { db, insert, values, commits: () => commits };
}

describe('group commit', () => {
  it('writes of one turn share one transaction and each resolves with its own result', async () => {
    const { db, insert, values, commits } = open();
    const group = new GroupCommit(db);
    const results = await Promise.all(['a', 'b', 'c'].map((v) => group.run(() => insert.run(v).changes + v)));
    expect(results).toEqual(['1a', '1b', '1c']);
    expect(values()).toEqual(['a', 'b', 'c']);
    expect(commits()).toBe(1);
    // The next turn is the next transaction.
    await group.run(() => insert.run('d'));
    expect(commits()).toBe(2);
  });

  it('a write that throws is rolled back alone (its own savepoint); the others commit', async () => {
    const { db, insert, values } = open();
    insert.run('taken');
    const group = new GroupCommit(db);
    const settled = await Promise.allSettled([
      group.run(() => insert.run('a')),
      group.run(() => {
        insert.run('half-done');
        insert.run('taken'); // UNIQUE fails: 'half-done' must go too
      }),
      group.run(() => insert.run('c')),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(values()).toEqual(['a', 'c', 'taken']);
  });

  it('when the shared commit fails, each write is tried on its own: the good ones commit, the bad one is refused', async () => {
    const { db, insert, values } = open();
    // A deferred foreign key is checked at COMMIT only, so one write can make the whole shared commit fail.
    db.pragma('foreign_keys = ON');
    db.exec('CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)');
    const group = new GroupCommit(db);
    const settled = await Promise.allSettled([
      group.run(() => insert.run('before')),
      group.run(() => db.prepare('INSERT INTO child (p) VALUES (42)').run()),
      group.run(() => insert.run('after')),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(values()).toEqual(['after', 'before']);
    expect(db.prepare('SELECT COUNT(*) AS n FROM child').get()).toEqual({ n: 0 });
  });
});
