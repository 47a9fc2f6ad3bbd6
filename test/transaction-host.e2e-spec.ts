import { jest } from '@jest/globals';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { inlineParameters, LockingReadError, takesLocks, TransactionHost } from '@app/database';
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

  /**
   * Whether the advisory lock of `hashtext(key)` is held, in this file's database (other files' apps take hosts' locks on
   * the same server meanwhile), seen from a connection of its own.
   */
  const advisoryHeld = async (key: string): Promise<number> =>
    (
      (await dataSource.query(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND objid::bigint = (hashtext($1)::bigint & 4294967295)`,
        [key],
      )) as { n: number }[]
    )[0].n;

  const insert = (value: string): Promise<unknown> => tx.transactional.query('INSERT INTO tx_probe (value) VALUES ($1)', [value]);
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
        expect(await tx.reads.query('SELECT count(*)::int AS n FROM tx_probe')).toEqual([{ n: 2 }]);
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

  it('outside(reason) runs on its own: its write stays when the caller’s transaction rolls back', async () => {
    await dataSource.query('DELETE FROM tx_probe');
    await expect(
      tx.transaction(async () => {
        await insert('rolled back');
        await tx.outside('the probe must outlive the transaction').query('INSERT INTO tx_probe (value) VALUES ($1)', ['kept']);
        throw new Error('the use case fails');
      }),
    ).rejects.toThrow('the use case fails');
    expect(await values()).toEqual(['kept']);
    expect(() => tx.outside(' ')).toThrow(/Say why/);
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

  it('transaction(): START TRANSACTION leaves in one message with a first lock(), before any other first statement; a transaction that sends nothing takes no connection', async () => {
    await dataSource.query('TRUNCATE tx_probe');
    type Connection = { query: (...args: unknown[]) => unknown };
    const messages = async (work: () => Promise<void>): Promise<string[]> => {
      const sent: string[] = [];
      await tx.transaction(async () => {
        // The transaction's own connection, taken without a word to the server; every message it sends is seen.
        const connection = (await tx.transactional.queryRunner!.connect()) as Connection;
        const query = jest.spyOn(connection, 'query');
        try {
          await work();
        } finally {
          sent.push(...query.mock.calls.map(([text]) => String(typeof text === 'string' ? text : (text as { text: string }).text)));
          query.mockRestore();
        }
      });
      return sent;
    };
    const lockedHere = (): Promise<number> => advisoryHeld('tx-probe lock');

    let held = -1;
    const withLock = await messages(async () => {
      await tx.lock('SELECT pg_advisory_xact_lock(hashtext($1))', ['tx-probe lock']);
      held = await lockedHere();
      await insert('after the lock');
    });
    expect(withLock[0]).toMatch(/^START TRANSACTION;\s*SELECT pg_advisory_xact_lock\(hashtext\('tx-probe lock'\)\)$/);
    expect(withLock.filter((text) => text === 'START TRANSACTION')).toEqual([]);
    expect(held).toBe(1);
    expect(await lockedHere()).toBe(0);
    expect(await values()).toEqual(['after the lock']);

    const withRead = await messages(async () => {
      await tx.reads.query('SELECT 1');
      await tx.lock('SELECT pg_advisory_xact_lock(hashtext($1))', ['tx-probe lock']);
    });
    expect(withRead.slice(0, 2)).toEqual(['START TRANSACTION', 'SELECT 1']);
    expect(withRead[2]).toMatch(/^SELECT pg_advisory_xact_lock/);

    // Rolled back after the lock: the lock and the write go with it.
    await expect(
      tx.transaction(async () => {
        await tx.lock('SELECT pg_advisory_xact_lock(hashtext($1))', ['tx-probe lock']);
        await insert('rolled back');
        throw new Error('the use case fails');
      }),
    ).rejects.toThrow('the use case fails');
    expect(await values()).toEqual(['after the lock']);
    expect(await lockedHere()).toBe(0);

    // A batched transaction that fails with a write still held: the write is dropped, not sent before the ROLLBACK (it
    // would fail there and keep the ROLLBACK from being sent, leaving the lock held on a pooled connection).
    await expect(
      tx.transaction(
        async () => {
          await tx.lock('SELECT pg_advisory_xact_lock(hashtext($1))', ['tx-probe lock']);
          await tx.write('INSERT INTO tx_probe (value) VALUES (NULL)', []);
          throw new Error('the use case fails with a write held');
        },
        { batched: true },
      ),
    ).rejects.toThrow('the use case fails with a write held');
    expect(await lockedHere()).toBe(0);
    expect(await values()).toEqual(['after the lock']);

    let connected: unknown = 'unknown';
    await tx.transaction(async () => {
      connected = (tx.transactional.queryRunner as unknown as { databaseConnection?: unknown }).databaseConnection;
    });
    expect(connected).toBeUndefined();
    await expect(tx.transaction(() => tx.lock('SELECT 1', []))).rejects.toThrow(/lock\(\) is for statements that take locks/);
  });

  it('lock({ withNext }): the lock leaves with the next statement, a prepared read or the batched writes, in its round trip, and is held from then', async () => {
    await dataSource.query('TRUNCATE tx_probe');
    await dataSource.query(`INSERT INTO tx_probe (value) VALUES ('a'), ('b')`);
    const LOCK = 'SELECT pg_advisory_xact_lock(hashtext($1))';
    const heldElsewhere = (): Promise<number> => advisoryHeld('tx-probe next');

    // Before a prepared read: nothing is sent at lock(); then one round trip with START TRANSACTION, the lock and the
    // read, whose rows come back parsed as pg parses them; the lock is held from then to the end.
    let before = -1;
    let during = -1;
    let rows: unknown[] = [];
    let sent: string[] = [];
    await tx.transaction(async () => {
      sent = await roundTrips(async () => {
        await tx.lock(LOCK, ['tx-probe next'], { withNext: true });
        before = await heldElsewhere();
        rows = await tx.prepared('tx-probe read', `SELECT value, length(value) AS n, now() AS at FROM tx_probe ORDER BY value`, []);
        during = await heldElsewhere();
      });
    });
    expect(sent).toEqual([
      'START TRANSACTION;\nSELECT pg_advisory_xact_lock(hashtext($1));\nSELECT value, length(value) AS n, now() AS at FROM tx_probe ORDER BY value',
    ]);
    expect([before, during, await heldElsewhere()]).toEqual([0, 1, 0]);
    expect(rows).toEqual([
      { value: 'a', n: 1, at: expect.any(Date) },
      { value: 'b', n: 1, at: expect.any(Date) },
    ]);

    // Before batched writes: with them and the COMMIT, one round trip in all.
    type Connection = { query: (...args: unknown[]) => unknown };
    let connection: Connection | undefined;
    let query: { mock: { calls: unknown[][] }; mockRestore(): void } | undefined;
    try {
      await tx.transaction(
        async () => {
          connection = (await tx.transactional.queryRunner!.connect()) as Connection;
          query = jest.spyOn(connection, 'query');
          await tx.lock(LOCK, ['tx-probe next'], { withNext: true });
          await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', ['c']);
        },
        { batched: true },
      );
      sent = query!.mock.calls.map(([text]) => String(typeof text === 'string' ? text : (text as { text: string }).text));
    } finally {
      query?.mockRestore();
    }
    expect(sent).toEqual([
      'START TRANSACTION;\nSELECT pg_advisory_xact_lock(hashtext($1));\nINSERT INTO tx_probe (value) VALUES ($1);\nCOMMIT',
    ]);
    expect(await values()).toEqual(['a', 'b', 'c']);

    // Before any other statement: in one message with START TRANSACTION, as a lock without withNext.
    await tx.transaction(async () => {
      sent = await roundTrips(async () => {
        await tx.lock(LOCK, ['tx-probe next'], { withNext: true });
        await tx.reads.query('SELECT 1');
      });
    });
    expect(sent).toEqual(["START TRANSACTION;\nSELECT pg_advisory_xact_lock(hashtext('tx-probe next'))", 'SELECT 1']);

    // A lock that fails fails the statement it left with, and the transaction rolls back: no lock stays, and the next one works.
    await expect(
      tx.transaction(async () => {
        await tx.lock('SELECT pg_advisory_xact_lock(hashtext($1) / 0)', ['tx-probe next'], { withNext: true });
        await tx.prepared('tx-probe read', `SELECT value, length(value) AS n, now() AS at FROM tx_probe ORDER BY value`, []);
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await heldElsewhere()).toBe(0);
    await tx.transaction(async () => {
      await tx.lock(LOCK, ['tx-probe next'], { withNext: true });
      expect(
        await tx.prepared('tx-probe read', `SELECT value, length(value) AS n, now() AS at FROM tx_probe ORDER BY value`, []),
      ).toHaveLength(3);
    });

    // Nothing after it: nothing is sent, nothing was begun.
    await tx.transaction(async () => {
      sent = await roundTrips(() => tx.lock(LOCK, ['tx-probe next'], { withNext: true }));
    });
    expect(sent).toEqual([]);
  });

  /** The texts `work` sends on the open transaction's connection, one per round trip (a pipelined batch's joined). */
  async function roundTrips(work: () => Promise<void>): Promise<string[]> {
    type Connection = { query: (...args: unknown[]) => unknown };
    const connection = (await tx.transactional.queryRunner!.connect()) as Connection;
    const query = jest.spyOn(connection, 'query');
    try {
      await work();
      return query.mock.calls.map(([text]) => String(typeof text === 'string' ? text : (text as { text: string }).text));
    } finally {
      query.mockRestore();
    }
  }

  it('batched(): writes go out together, in one round trip with the transaction’s start, their values bound', async () => {
    await dataSource.query('TRUNCATE tx_probe');
    let sent: string[] = [];
    let prepared: unknown[] = [];
    await tx.transaction(async () => {
      sent = await roundTrips(() =>
        tx.batched(async () => {
          await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', ["it's one"]);
          await tx.write('INSERT INTO tx_probe (value) SELECT unnest($1::text[])', [['two \\ back', 'three "quoted"']]);
        }),
      );
      // Named statements of this connection: planned once here, not at every batch.
      prepared = await tx.reads.query(
        `SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO tx_probe%' ORDER BY statement`,
      );
    });
    expect(sent).toEqual([
      'START TRANSACTION;\nINSERT INTO tx_probe (value) VALUES ($1);\nINSERT INTO tx_probe (value) SELECT unnest($1::text[])',
    ]);
    expect(prepared).toEqual([
      { statement: 'INSERT INTO tx_probe (value) SELECT unnest($1::text[])' },
      { statement: 'INSERT INTO tx_probe (value) VALUES ($1)' },
    ]);
    expect(await values()).toEqual(["it's one", 'three "quoted"', 'two \\ back']);
  });

  it('batched(): on one connection, a batch that failed halfway and one whose value cannot be sent leave it as good as new', async () => {
    // One connection, so each transaction below reuses the statements the earlier ones named (or tried to).
    const single = await new DataSource({ type: 'postgres', url: t.databaseUrl, poolSize: 1 }).initialize();
    const host = new TransactionHost(single);
    const write = (value: unknown): Promise<void> => host.write(`INSERT INTO tx_probe (value) VALUES ($1 || '')`, [value]);
    try {
      await dataSource.query('TRUNCATE tx_probe');
      // The first statement's Parse reached the server, then the second failed: the name may or may not exist there.
      await expect(
        host.transaction(() =>
          host.batched(async () => {
            await write('lost');
            await host.write('INSERT INTO tx_probe (value) VALUES ($1)', [null]);
          }),
        ),
      ).rejects.toMatchObject({ driverError: expect.objectContaining({ code: '23502' }) });
      // A value pg cannot turn into text (a cycle) is refused before anything is sent.
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(
        host.transaction(() =>
          host.batched(async () => {
            await write('not sent');
            await write(cyclic);
          }),
        ),
      ).rejects.toThrow(/circular/i);
      // Refused before anything was sent, the batch's START TRANSACTION still waits: what the transaction does next is
      // in it, and rolls back with it (sent at once, it would have been autocommitted).
      await expect(
        host.transaction(async () => {
          await host.batched(() => write(cyclic)).catch(() => undefined);
          await host.transactional.query(`INSERT INTO tx_probe (value) VALUES ('rolled back with it')`);
          throw new Error('the use case fails');
        }),
      ).rejects.toThrow('the use case fails');
      await host.transaction(() =>
        host.batched(async () => {
          await write('kept');
          await write('also kept');
        }),
      );
      expect(await values()).toEqual(['also kept', 'kept']);
      // The batches' statement names are theirs alone.
      await expect(host.prepared('batch:0', 'SELECT 1', [])).rejects.toThrow(/are the batches/);
    } finally {
      await single.destroy();
    }
  });

  it('transaction({ batched }): its last writes and its COMMIT leave in one round trip; a COMMIT that fails leaves nothing', async () => {
    await dataSource.query('TRUNCATE tx_probe');
    await dataSource.query(
      'CREATE TABLE tx_deferred (value text, CONSTRAINT tx_deferred_once UNIQUE (value) DEFERRABLE INITIALLY DEFERRED)',
    );
    type Connection = { query: (...args: unknown[]) => unknown };
    let spy: { mock: { calls: unknown[][] }; mockRestore(): void } | undefined;
    await tx.transaction(
      async () => {
        // Watched until after the transaction's end (the connection then goes back to the pool, the spy with it).
        spy = jest.spyOn((await tx.transactional.queryRunner!.connect()) as Connection, 'query');
        await tx.reads.query('SELECT 1');
        await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', ['with the commit']);
      },
      { batched: true },
    );
    const sent = spy!.mock.calls.map(([text]) => String(typeof text === 'string' ? text : (text as { text: string }).text));
    spy!.mockRestore();
    expect(sent).toEqual(['START TRANSACTION', 'SELECT 1', 'INSERT INTO tx_probe (value) VALUES ($1);\nCOMMIT']);
    expect(await values()).toEqual(['with the commit']);

    // The deferred unique constraint is checked at COMMIT, which fails after both writes ran: neither stays.
    await expect(
      tx.transaction(
        async () => {
          await tx.write('INSERT INTO tx_deferred (value) VALUES ($1)', ['twice']);
          await tx.write('INSERT INTO tx_deferred (value) VALUES ($1)', ['twice']);
        },
        { batched: true },
      ),
    ).rejects.toMatchObject({ driverError: expect.objectContaining({ code: '23505' }) });
    expect(await dataSource.query('SELECT count(*)::int AS n FROM tx_deferred')).toEqual([{ n: 0 }]);
    await tx.transaction(() => tx.write('INSERT INTO tx_deferred (value) VALUES ($1)', ['once']), { batched: true });
    expect(await dataSource.query('SELECT value FROM tx_deferred')).toEqual([{ value: 'once' }]);
    await dataSource.query('DROP TABLE tx_deferred');
  });

  it('batched(): statements run in the order they are called, whichever accessor sends them', async () => {
    await dataSource.query('TRUNCATE tx_probe');
    const seen: unknown[] = [];
    let sent: string[] = [];
    await tx.transaction(async () => {
      sent = await roundTrips(() =>
        tx.batched(async () => {
          await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', ['a']);
          await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', ['b']);
          seen.push(await tx.reads.query("SELECT string_agg(value, ',' ORDER BY value) AS v FROM tx_probe"));
          await tx.transactional.query('UPDATE tx_probe SET value = value || $1', ['!']);
          await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', ['c']);
          seen.push(await tx.prepared('tx_probe_values', "SELECT string_agg(value, ',' ORDER BY value) AS v FROM tx_probe", []));
          await tx.write('DELETE FROM tx_probe WHERE value = $1', ['a!']);
        }),
      );
      seen.push(await tx.reads.query("SELECT string_agg(value, ',' ORDER BY value) AS v FROM tx_probe"));
    });
    expect(seen).toEqual([[{ v: 'a,b' }], [{ v: 'a!,b!,c' }], [{ v: 'b!,c' }]]);
    // The two first writes left together with the transaction's start, before the read that followed them.
    expect(sent[0]).toBe('START TRANSACTION;\nINSERT INTO tx_probe (value) VALUES ($1);\nINSERT INTO tx_probe (value) VALUES ($1)');
    expect(sent[1]).toMatch(/^SELECT string_agg/);
  });

  it('batched(): an error of a held write reaches the statement after it, which never runs', async () => {
    await dataSource.query('TRUNCATE tx_probe');
    let read = false;
    await expect(
      tx.transaction(() =>
        tx.batched(async () => {
          await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', ['first']);
          await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', [null]);
          await tx.reads.query('SELECT 1');
          read = true;
        }),
      ),
    ).rejects.toMatchObject({ driverError: expect.objectContaining({ code: '23502' }) });
    expect(read).toBe(false);
    expect(await values()).toEqual([]);
  });

  it('refuses a statement that takes locks through reads, in a transaction or not; transactional takes them', async () => {
    const locking = [
      'SELECT value FROM tx_probe FOR UPDATE',
      'SELECT value FROM tx_probe FOR NO KEY UPDATE SKIP LOCKED',
      'SELECT value FROM tx_probe\n  FOR   SHARE',
      'SELECT value FROM tx_probe FOR KEY SHARE',
      "SELECT pg_advisory_xact_lock(hashtext('k'))",
      "SELECT count(pg_try_advisory_xact_lock_shared(hashtext(k))) FROM unnest(ARRAY['a']) AS k",
    ];
    for (const text of locking) {
      await expect(tx.reads.query(text)).rejects.toBeInstanceOf(LockingReadError);
      await expect(tx.transaction(() => tx.reads.query(text))).rejects.toBeInstanceOf(LockingReadError);
      await expect(tx.prepared(`tx_probe_lock_${locking.indexOf(text)}`, text, [])).rejects.toBeInstanceOf(LockingReadError);
      await tx.transaction(() => tx.transactional.query(text));
    }
    await expect(tx.reads.sql`SELECT value FROM tx_probe FOR UPDATE`).rejects.toBeInstanceOf(LockingReadError);
    // Built statements are checked too, also where TypeORM itself would not refuse the lock (raw results).
    const locked = () => tx.reads.createQueryBuilder().select('p.value').from('tx_probe', 'p').setLock('pessimistic_write').getRawMany();
    await expect(locked()).rejects.toBeInstanceOf(LockingReadError);
    await expect(tx.transaction(locked)).rejects.toBeInstanceOf(LockingReadError);
    // Not a lock: the words inside a string, a quoted name or a comment.
    expect(await tx.reads.query(`SELECT 'FOR UPDATE' AS "for share" -- FOR UPDATE\n`)).toEqual([{ 'for share': 'FOR UPDATE' }]);
    expect(takesLocks('SELECT $$ pg_advisory_xact_lock( $$ /* FOR SHARE */')).toBe(false);
  });

  it('batched(): a failing write fails the batch and the transaction rolls back whole', async () => {
    await dataSource.query('TRUNCATE tx_probe');
    await expect(
      tx.transaction(() =>
        tx.batched(async () => {
          await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', ['kept?']);
          await tx.write('INSERT INTO tx_probe (value) VALUES ($1)', [null]);
        }),
      ),
    ).rejects.toMatchObject({ driverError: expect.objectContaining({ code: '23502' }) });
    expect(await values()).toEqual([]);
  });

  it('inlineParameters() writes every value as PostgreSQL reads the same parameter', async () => {
    const value = fc.oneof(
      fc.string({ unit: 'binary' }).map((text) => text.split(String.fromCharCode(0)).join('')),
      fc.array(
        fc.string().map((text) => text.split(String.fromCharCode(0)).join('')),
        { maxLength: 4 },
      ),
      fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.dictionary(fc.string(), fc.string()).map((object) => JSON.stringify(object)),
    );
    await fc.assert(
      fc.asyncProperty(value, async (input) => {
        const cast = Array.isArray(input) ? 'text[]' : input instanceof Date ? 'timestamptz' : 'text';
        const text = `SELECT $1::${cast}::text AS v`;
        const [viaParameter] = (await dataSource.query(text, [input])) as { v: string | null }[];
        const [viaLiteral] = (await dataSource.query(inlineParameters({ text, values: [input] }))) as { v: string | null }[];
        expect(viaLiteral).toEqual(viaParameter);
      }),
      { numRuns: 200 },
    );
  });
});
