import pg from 'pg';
import { type AppConfig, ConfigError, SecretSealer } from '@app/common';

/** What is sealed, bound to the row as every sealed value is bound to its own. */
const CHECK_TEXT = 'scheduling-api encryption key check';
const CONTEXT = 'encryption_key_check:1';

export type KeyCheckOutcome = 'recorded' | 'matched' | 'rotated';

export const KEY_MISMATCH =
  'does not open the secrets this database was set up with. Give this instance the same ENCRYPTION_KEY as the ' +
  'others, or rotate: the new key as ENCRYPTION_KEY and the old one as ENCRYPTION_KEY_PREVIOUS on every instance';

/**
 * Before an instance (API or worker) serves anything: the database's check value must open with its
 * ENCRYPTION_KEY, else it exits (ConfigError) before it could fail a delivery or a calendar write. The first
 * instance seals the value; under a rotation (the old key as ENCRYPTION_KEY_PREVIOUS) the value is opened with the
 * previous key and sealed again with the new one, so an instance with the new key alone starts afterwards. One
 * transaction under an advisory lock: instances starting together agree on one value.
 */
export async function checkEncryptionKey(config: AppConfig, now: Date = new Date()): Promise<KeyCheckOutcome> {
  const sealer = new SecretSealer(config);
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('encryption-key-check'))`);
    const { rows } = await client.query<{ sealed: string }>('SELECT sealed FROM encryption_key_check WHERE id = 1');
    let outcome: KeyCheckOutcome;
    if (rows.length === 0) {
      await client.query('INSERT INTO encryption_key_check (id, sealed, updated_at) VALUES (1, $1, $2)', [
        sealer.seal(CHECK_TEXT, CONTEXT),
        now,
      ]);
      outcome = 'recorded';
    } else {
      let current: boolean;
      try {
        current = sealer.sealedWithCurrentKey(rows[0].sealed, CONTEXT);
      } catch {
        throw new ConfigError('ENCRYPTION_KEY', KEY_MISMATCH);
      }
      if (!current) {
        await client.query('UPDATE encryption_key_check SET sealed = $1, updated_at = $2 WHERE id = 1', [
          sealer.seal(CHECK_TEXT, CONTEXT),
          now,
        ]);
      }
      outcome = current ? 'matched' : 'rotated';
    }
    await client.query('COMMIT');
    return outcome;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
