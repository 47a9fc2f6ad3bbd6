/**
 * Walks a table in id order, `fetch` giving the rows after an id (a batch at a time, so a large table
 * never sits in memory); `each` says whether it changed a row. Returns how many it changed.
 * Used by the jobs that rewrite every row of a kind (re-sealing secrets after a key rotation).
 */
export async function forEachInBatches<T extends { id: string }>(
  fetch: (afterId: string) => Promise<T[]>,
  each: (row: T) => Promise<boolean>,
): Promise<number> {
  let changed = 0;
  for (let after = ''; ;) {
    const rows = await fetch(after);
    if (rows.length === 0) return changed;
    for (const row of rows) if (await each(row)) changed++;
    after = rows[rows.length - 1].id;
  }
}
