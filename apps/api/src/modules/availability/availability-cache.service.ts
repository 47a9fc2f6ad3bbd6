import { Injectable } from '@nestjs/common';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { AppConfig, type TenantScope } from '@app/common';

/** One computed answer of GET /availability. */
export interface CachedAnswer {
  /** The response body, serialized and encoded to UTF-8 once: a warm answer writes these bytes as they are. */
  readonly body: Buffer;
  /** `SlotReadModel.fingerprint` of the event type and its hosts, read before the answer's data. */
  readonly fingerprint: string;
  /** From this instant (epoch ms) time alone changes the answer: minimum notice, booking window. */
  readonly validUntil: number;
  /** The body compressed, per encoding, the first time a client asked for it (AnswerEncoder). */
  readonly compressed: Partial<Record<ContentEncoding, Buffer>>;
}

export type ContentEncoding = 'br' | 'gzip';

/**
 * Bytes that own all of their memory, for keeping in the cache: `Buffer.from` of a short string and zlib's output are
 * views of larger blocks (Node's 8 KB pool, zlib's 16 KB chunk) that an entry would keep alive beyond what it counts.
 */
export function ownBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(own);
  return own;
}

/**
 * A cached answer's body in a content encoding, compressed once and kept with the answer, so a warm answer costs no
 * compression (@fastify/compress skips a reply that already has a Content-Encoding). Brotli at quality 4, gzip at
 * zlib's default level: the settings @fastify/compress itself uses.
 */
export function encodedBody(answer: Pick<CachedAnswer, 'body' | 'compressed'>, encoding: ContentEncoding): Buffer {
  let bytes = answer.compressed[encoding];
  if (bytes === undefined) {
    bytes = ownBytes(
      encoding === 'br' ? brotliCompressSync(answer.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }) : gzipSync(answer.body),
    );
    answer.compressed[encoding] = bytes;
  }
  return bytes;
}

/**
 * Computed availability answers in process memory, bounded by bytes (AVAILABILITY_CACHE_MB, least
 * recently used out first), keyed by organization, mode, event type, dates and zone. An entry is used
 * only while the clock is before its `validUntil` and the versions of what it was computed from have
 * not moved (the caller checks the fingerprint with one indexed query), so no instance ever answers
 * from an entry another instance's committed change made stale.
 */
@Injectable()
export class AvailabilityCache {
  private readonly entries: LRUCache<string, CachedAnswer> | null;

  constructor(config: AppConfig) {
    this.entries =
      config.availabilityCacheBytes > 0
        ? new LRUCache<string, CachedAnswer>({
            maxSize: config.availabilityCacheBytes,
            // The body's bytes, the key (UTF-16 in memory) and the entry, plus room for its compressed copies (JSON of
            // slots compresses to well under a tenth; both encodings together are allowed half the body).
            sizeCalculation: (answer, key) => answer.body.length + 2 * key.length + Math.ceil(answer.body.length / 2) + 200,
          })
        : null;
  }

  /** False with AVAILABILITY_CACHE_MB=0: answers are computed every time and nothing is validated. */
  get enabled(): boolean {
    return this.entries !== null;
  }

  key(scope: TenantScope, eventTypeId: string, start: string, end: string, timeZone: string): string {
    return `${scope.organizationId}|${scope.livemode ? 'live' : 'test'}|${eventTypeId}|${start}|${end}|${timeZone}`;
  }

  /** The entry, unless time has run out on it (its versions are the caller's to check). */
  get(key: string, now: number): CachedAnswer | undefined {
    const answer = this.entries?.get(key);
    return answer && now < answer.validUntil ? answer : undefined;
  }

  set(key: string, answer: CachedAnswer): void {
    this.entries?.set(key, answer);
  }
}
