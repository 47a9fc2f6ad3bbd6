import pg from 'pg';
import { type AppConfig, ConfigError, SecretSealer } from '@app/common';

/** What is sealed, bound to the row as every sealed value is bound to its own. */
const CHECK_TEXT = 'scheduling-api encryption key check';
const CONTEXT = 'encryption_key_check:1';

export type KeyCheckOutcome = 'recorded' | 'matched' | 'rotating';

export const KEY_MISMATCH =
  'does not open the secrets this database was set up with. Give this instance the same ENCRYPTION_KEY as the ' +
  'others, or rotate: the new key as ENCRYPTION_KEY and the old one as ENCRYPTION_KEY_PREVIOUS on every instance';

/** One transaction under the check's advisory lock, on a connection of its own (it runs before Nest, and from jobs). */
async function underCheckLock<T>(config: AppConfig, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: config.databaseUrl });
  // A connection cut under it (a failover) fails the query in flight; without a listener the same error, emitted as
  // an event, would be unhandled and end the process (seen in the failover tests, a job's check during an HAProxy restart).
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('encryption-key-check'))`);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * Before an instance (API or worker) serves anything: the database's check value must open with its
 * ENCRYPTION_KEY (or, during a rotation, its ENCRYPTION_KEY_PREVIOUS), else it exits (ConfigError) before it could
 * fail a delivery or a calendar write. The first instance seals the value. A rotating instance (the old key as
 * ENCRYPTION_KEY_PREVIOUS) leaves it sealed with the old key: an instance with the new key alone is refused until
 * every sealed secret has been re-sealed and `completeRotation` re-seals the value. Under an advisory lock:
 * instances starting together agree on one value.
 */
export async function checkEncryptionKey(config: AppConfig, now: Date = new Date()): Promise<KeyCheckOutcome> {
  const sealer = new SecretSealer(config);
  return underCheckLock(config, async (client) => {
    const { rows } = await client.query<{ sealed: string }>('SELECT sealed FROM encryption_key_check WHERE id = 1');
    if (rows.length === 0) {
      await client.query('INSERT INTO encryption_key_check (id, sealed, updated_at) VALUES (1, $1, $2)', [
        sealer.seal(CHECK_TEXT, CONTEXT),
        now,
      ]);
      return 'recorded';
    }
    try {
      return sealer.sealedWithCurrentKey(rows[0].sealed, CONTEXT) ? 'matched' : 'rotating';
    } catch {
      throw new ConfigError('ENCRYPTION_KEY', KEY_MISMATCH);
    }
  });
}

export type RotationOutcome = 'rotated' | 'current' | 'absent';

/**
 * Ends a rotation once every sealed secret has been re-sealed under the current key (KeyRotation decides when): the
 * check value, still sealed with ENCRYPTION_KEY_PREVIOUS, is sealed again with ENCRYPTION_KEY, and from then on an
 * instance with the new key alone starts. 'current' when it already is; 'absent' before any instance recorded it.
 */
export async function completeRotation(config: AppConfig, now: Date = new Date()): Promise<RotationOutcome> {
  const sealer = new SecretSealer(config);
  return underCheckLock(config, async (client) => {
    const { rows } = await client.query<{ sealed: string }>('SELECT sealed FROM encryption_key_check WHERE id = 1');
    if (rows.length === 0) return 'absent';
    if (sealer.sealedWithCurrentKey(rows[0].sealed, CONTEXT)) return 'current';
    await client.query('UPDATE encryption_key_check SET sealed = $1, updated_at = $2 WHERE id = 1', [
      sealer.seal(CHECK_TEXT, CONTEXT),
      now,
    ]);
    return 'rotated';
  });
}
