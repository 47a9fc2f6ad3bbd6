import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';

/** Hands the connection the addresses the guard checked, so a second DNS answer (rebinding) is never used. */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const candidates = family === 0 ? [...addresses] : addresses.filter((a) => a.family === family);
    if (candidates.length === 0) {
      callback(Object.assign(new Error(`No checked address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      return;
    }
    if (options.all) callback(null, candidates);
    else callback(null, candidates[0].address, candidates[0].family);
  };
}
