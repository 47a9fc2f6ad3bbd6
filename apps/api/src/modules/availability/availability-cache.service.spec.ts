import { gzipSync } from 'node:zlib';
import { ownBytes } from './availability-cache.service.js';

describe('ownBytes: what a cache entry keeps alive is what it counts', () => {
  const owns = (bytes: Buffer): boolean => bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;

  it.each<[string, () => Buffer]>([
    ['a short string’s bytes (a view of the 8 KB pool)', () => Buffer.from('{"slots":[],"timezone":"UTC"}')],
    ['zlib’s output (a view of its chunk)', () => gzipSync('{"slots":[]}'.repeat(500))],
    ['a slice', () => Buffer.from('x'.repeat(10_000)).subarray(10, 20)],
  ])('copies %s to memory of its own length, same bytes', (_label, make) => {
    const bytes = make();
    expect(owns(bytes)).toBe(false);
    const own = ownBytes(bytes);
    expect(owns(own)).toBe(true);
    expect(own.equals(bytes)).toBe(true);
  });

  it('keeps bytes that already own their memory as they are', () => {
    const bytes = Buffer.allocUnsafeSlow(16).fill(1);
    expect(ownBytes(bytes)).toBe(bytes);
  });
});
