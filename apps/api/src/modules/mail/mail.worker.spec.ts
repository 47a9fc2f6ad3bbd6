import { retryForAWhile } from './mail.worker.js';

describe('retryForAWhile (recording sent mail across a database failover)', () => {
  it('repeats the write until the database answers again, so a sent mail is not sent again after its lease', async () => {
    let calls = 0;
    const failures: unknown[] = [];
    await retryForAWhile(
      async () => {
        if (++calls < 3) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      },
      1000,
      5,
      (error) => failures.push(error),
    );
    expect(calls).toBe(3);
    expect(failures).toHaveLength(2);
  });

  it('gives up with the last error once its time is spent (the lease then sends the mail again: at least once)', async () => {
    let calls = 0;
    await expect(
      retryForAWhile(
        async () => {
          calls++;
          throw new Error('database away');
        },
        30,
        10,
        () => undefined,
      ),
    ).rejects.toThrow('database away');
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(5);
  });
});
