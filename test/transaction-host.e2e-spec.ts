import { DataSource } from 'typeorm';
import { TransactionHost } from '@app/database';
import { startTestApp, type TestApp } from './support/app.js';

/** The transaction context every repository joins: what a forgotten parameter used to get wrong silently. */
describe('TransactionHost', () => {
  let t: TestApp;
  let tx: TransactionHost;
  let dataSource: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    tx = t.app.get(TransactionHost);
    dataSource = t.app.get(DataSource);
    await dataSource.query('CREATE TABLE tx_probe (value text NOT NULL)');
  });
  afterAll(async () => {
    await t.close();
  });

  const insert = (value: string): Promise<unknown> => tx.manager.query('INSERT INTO tx_probe (value) VALUES ($1)', [value]);
  const values = async (): Promise<string[]> =>
    ((await dataSource.query('SELECT value FROM tx_probe ORDER BY value')) as { value: string }[]).map((row) => row.value);

  it('a repository call inside transaction() joins it, across awaits and nested calls, and rolls back with it', async () => {
    await expect(
      tx.transaction(async () => {
        await insert('a');
        await tx.transaction(async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          await insert('b');
        });
        expect(await tx.manager.query('SELECT count(*)::int AS n FROM tx_probe')).toEqual([{ n: 2 }]);
        throw new Error('the use case fails after both writes');
      }),
    ).rejects.toThrow('the use case fails');
    expect(await values()).toEqual([]);
  });

  it('commits what it ran once the outermost transaction ends', async () => {
    await tx.transaction(async () => {
      await insert('c');
      await tx.transaction(() => insert('d'));
    });
    expect(await values()).toEqual(['c', 'd']);
  });

  it('refuses a transactional write outside a transaction instead of running it on autocommit', async () => {
    expect(tx.inTransaction).toBe(false);
    expect(() => tx.transactional).toThrow(/inside TransactionHost.transaction/);
    await tx.transaction(async () => expect(tx.inTransaction).toBe(true));
  });

  it('keeps concurrent transactions apart', async () => {
    await dataSource.query('DELETE FROM tx_probe');
    const results = await Promise.allSettled([
      tx.transaction(async () => {
        await insert('kept');
      }),
      tx.transaction(async () => {
        await insert('dropped');
        await new Promise((resolve) => setTimeout(resolve, 10));
        throw new Error('only this one fails');
      }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
    expect(await values()).toEqual(['kept']);
  });
});
