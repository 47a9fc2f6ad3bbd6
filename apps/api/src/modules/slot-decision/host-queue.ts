/**
 * Bookings of one host wait for each other in this process before they take a database connection.
 * The database's per-host advisory lock is what makes bookings correct across instances; without this
 * queue, requests for a busy host would sit on pooled connections waiting for that lock while requests
 * for free hosts wait for a connection (measured: 19 of 20 connections waiting on advisory locks).
 * Keys are taken in sorted order, so two requests never wait for each other in a cycle.
 */
export class HostQueue {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    try {
      for (const key of [...new Set(keys)].sort()) releases.push(await this.acquire(key));
      return await work();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  /** How many keys have a holder or waiters (for tests). */
  get size(): number {
    return this.tails.size;
  }

  private async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    return () => {
      release();
      // The last one out removes the key, so the map holds only keys in use.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
