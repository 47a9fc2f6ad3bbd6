import { GroupCommit } from './group-commit.js';

describe('GroupCommit', () => {
  it('writes the first item at once and what arrives meanwhile together', async () => {
    const batches: number[][] = [];
    let release: (() => void) | undefined;
    const writer = new GroupCommit<number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = writer.submit(1);
    const rest = [2, 3, 4].map((n) => writer.submit(n));
    expect(batches).toEqual([[1]]);
    release!();
    await Promise.all([first, ...rest]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects every item of a failed batch and keeps going', async () => {
    let fail = true;
    const writer = new GroupCommit<string>(async () => {
      if (fail) throw new Error('database away');
    });
    await expect(writer.submit('a')).rejects.toThrow('database away');
    fail = false;
    await expect(writer.submit('b')).resolves.toBeUndefined();
  });
});
