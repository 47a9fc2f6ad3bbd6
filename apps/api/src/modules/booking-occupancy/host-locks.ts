/** The advisory locks of these hosts in one mode, sorted (see HostLocksRepository.lockHosts, slot-decision). */
export function hostLockKeys(livemode: boolean, hostUserIds: readonly string[]): string[] {
  return [...new Set(hostUserIds)].sort().map((host) => `booking-host:${livemode ? 'live' : 'test'}:${host}`);
}

/** Takes the locks of `$1` (text[]) in the order given, in one statement. */
export const LOCK_HOSTS_SQL = `SELECT count(pg_advisory_xact_lock(hashtext(k.key)))
   FROM (SELECT key FROM unnest($1::text[]) WITH ORDINALITY AS u(key, n) ORDER BY n) k`;
