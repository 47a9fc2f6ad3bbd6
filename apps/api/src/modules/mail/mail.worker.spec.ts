import { retryForAWhile, type RetryTimer } from './mail.worker.js';

/** A timer whose time moves only when the code pauses (and by `perWriteMs` at each write): no waiting, no load. */
function movedTimer(perWriteMs = 0): RetryTimer & { tick(): void; paused: number[] } {
  let now = 0;
  const paused: number[] = [];
  return {
    paused,
    now: () => now,
    pause: async (ms) => {
      paused.push(ms);
      now += ms;
    },
    tick: () => {
      now += perWriteMs;
    },
  };
}

describe('retryForAWhile (recording sent mail across a database failover)', () => {
  it('repeats the write until the database answers again, so a sent mail is not sent again after its lease', async () => {
    let calls = 0;
    const failures: unknown[] = [];
    const timer = movedTimer();
    await retryForAWhile(
      async () => {
        if (++calls < 3) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      },
      1000,
      5,
      (error) => failures.push(error),
      timer,
    );
    expect(calls).toBe(3);
    expect(failures).toHaveLength(2);
    expect(timer.paused).toEqual([5, 5]);
  });

  it('gives up with the last error once its time is spent (the lease then sends the mail again: at least once)', async () => {
    let calls = 0;
    const timer = movedTimer();
    await expect(
      retryForAWhile(
        async () => {
          calls++;
          throw new Error(`database away ${calls}`);
        },
        30,
        10,
        () => undefined,
        timer,
      ),
    ).rejects.toThrow('database away 4');
    // Writes at 0, 10, 20 and 30 ms; a fifth would start after the 30 ms are spent.
    expect(calls).toBe(4);
    expect(timer.paused).toEqual([10, 10, 10]);
  });

  it('counts the time a slow write takes against its budget', async () => {
    let calls = 0;
    const timer = movedTimer(25);
    await expect(
      retryForAWhile(
        async () => {
          calls++;
          timer.tick();
          throw new Error('database away');
        },
        30,
        10,
        () => undefined,
        timer,
      ),
    ).rejects.toThrow('database away');
    // First write ends at 25 ms: a pause of 10 would pass 30, so it stops there.
    expect(calls).toBe(1);
  });
});
