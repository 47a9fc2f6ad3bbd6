import { randomBytes } from 'node:crypto';
import { requestObserver } from './request-observer.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random bytes are drawn from the OS in blocks: one call per id showed up in request profiles. */
const POOL_SIZE = 8192;
let pool = randomBytes(POOL_SIZE);
let poolOffset = 0;

function nextRandomByte(): number {
  if (poolOffset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** Random base62 text; rejection sampling keeps every character uniformly likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export const ID_PREFIXES = [
  'org',
  'usr',
  'mem',
  'key',
  'evt',
  'bkg',
  'sch',
  'ovr',
  'wh',
  'whevt',
  'whdel',
  'ses',
  'inv',
  'mail',
  'cal',
  'calw',
  'hld',
  'ser',
  'ooo',
  'aud',
  'rtf',
  'rtr',
  'app',
  'grt',
  'oar',
  'otk',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

/** `prefix_` + 24 random base62 characters (~143 bits): never sequential, safe to expose. */
export function newId(prefix: IdPrefix): string {
  const id = `${prefix}_${randomBase62(24)}`;
  requestObserver()?.idMinted(prefix, id);
  return id;
}

/** What an id of this type looks like, as a regular expression's source (also the OpenAPI document's pattern). */
export function idPattern(prefix: IdPrefix): string {
  return `^${prefix}_[0-9A-Za-z]{20,64}$`;
}

const ID_EXPRESSIONS = new Map<IdPrefix, RegExp>(ID_PREFIXES.map((prefix) => [prefix, new RegExp(idPattern(prefix))]));

export function looksLikeId(value: string, prefix: IdPrefix): boolean {
  return ID_EXPRESSIONS.get(prefix)!.test(value);
}
