import { whileDatabaseStarts } from './runtime.js';

describe('whileDatabaseStarts (a process starting during a failover)', () => {
  const quiet = { warn: () => undefined };
  const cut = (): Error => new Error('Connection terminated unexpectedly');

  it('tries again while the database is unavailable, then goes on', async () => {
    let calls = 0;
    const work = async (): Promise<string> => {
      calls += 1;
      if (calls < 3) throw cut();
      return 'started';
    };
    await expect(whileDatabaseStarts(quiet, 'migrations', work, 5_000)).resolves.toBe('started');
    expect(calls).toBe(3);
  });

  it('gives up after its wait with the database’s error', async () => {
    let calls = 0;
    const work = async (): Promise<never> => {
      calls += 1;
      throw cut();
    };
    await expect(whileDatabaseStarts(quiet, 'migrations', work, 600)).rejects.toThrow('Connection terminated unexpectedly');
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('does not try again when the error is not the database being away', async () => {
    let calls = 0;
    const work = async (): Promise<never> => {
      calls += 1;
      throw new Error('relation "bookings" does not exist');
    };
    await expect(whileDatabaseStarts(quiet, 'migrations', work, 5_000)).rejects.toThrow('does not exist');
    expect(calls).toBe(1);
  });
});
