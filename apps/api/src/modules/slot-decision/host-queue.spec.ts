import { HostQueue } from './host-queue.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('HostQueue', () => {
  it('runs work on one key one at a time, in arrival order, and work on other keys at once', async () => {
    const queue = new HostQueue();
    const log: string[] = [];
    const gate = { open: (): void => undefined };
    const first = queue.run(['a'], () => new Promise<void>((resolve) => (gate.open = () => (log.push('a1'), resolve()))));
    const second = queue.run(['a'], async () => void log.push('a2'));
    const other = queue.run(['b'], async () => void log.push('b1'));
    await other;
    await tick();
    expect(log).toEqual(['b1']);
    gate.open();
    await Promise.all([first, second]);
    expect(log).toEqual(['b1', 'a1', 'a2']);
    expect(queue.size).toBe(0);
  });

  it('takes several keys in sorted order, so crossing requests cannot deadlock, and releases on failure', async () => {
    const queue = new HostQueue();
    const results = await Promise.allSettled([
      queue.run(['x', 'y'], async () => 'xy'),
      queue.run(['y', 'x'], async () => {
        throw new Error('boom');
      }),
      queue.run(['y'], async () => 'y'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(queue.size).toBe(0);
  });
});
