/** Bounds one statement's size; more waiting items go in the next one. */
const MAX_BATCH = 500;

/**
 * Writes items in batches: whatever arrives while a write is in flight goes out together in the next
 * one, so under load many items share one round trip and one commit, and alone an item goes at once.
 */
export class GroupCommit<T> {
  private pending: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  /** Resolves once the item is written; rejects with the batch's error. */
  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        try {
          await this.write(batch.map((entry) => entry.item));
          for (const entry of batch) entry.resolve();
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
