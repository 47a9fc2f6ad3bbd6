import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

const WRITE_METHOD = /\.(insert|update|delete|save|remove|softDelete|softRemove|restore|upsert|increment|decrement|clear)\(/;
const WRITE_SQL = /\b(INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|TRUNCATE|MERGE\s+INTO|pg_advisory_xact_lock|pg_notify)\b/i;

/**
 * Statements that start from `tx.reads` and write: each runs from the accessor to the end of its statement (the
 * next `;` at the end of a line). `reads` joins a transaction when one is open and runs on autocommit when not,
 * so a write through it is inside or outside depending on the caller: writes use `transactional`, `write()` or
 * `outside(reason)`.
 */
export function writesThroughReads(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\btx\s*\.reads\b/g)) {
    const end = text.indexOf(';\n', match.index);
    const statement = text.slice(match.index, end < 0 ? text.length : end);
    if (WRITE_METHOD.test(statement) || WRITE_SQL.test(statement)) {
      const line = text.slice(0, match.index).split('\n').length;
      found.push(`${line}: ${statement.split('\n')[0].trim()}`);
    }
  }
  return found;
}

describe('transaction modes', () => {
  it.each([
    ['this.tx.reads.insert(User, user);\n', 1],
    ['await this.tx.reads.query(\n  `DELETE FROM mail_outbox WHERE id = $1`,\n  [id],\n);\n', 1],
    ['await this.tx.reads.query(`WITH c AS (UPDATE webhooks SET active = false RETURNING id) SELECT id FROM c`, []);\n', 1],
    ['await this.tx\n  .reads.createQueryBuilder().update(Booking).set({}).execute();\n', 1],
    ['return this.tx.reads.findOne(User, { where: { id } });\n', 0],
    ['return this.tx.reads.query(`SELECT updated_at FROM bookings WHERE id = $1`, [id]);\n', 0],
    ['await this.tx.transactional.query(`DELETE FROM holds WHERE id = $1`, [id]);\n', 0],
    ["await this.tx.outside('retention').query(`DELETE FROM mail_outbox`);\n", 0],
  ])('finds the writes through reads in %j', (text, count) => {
    expect(writesThroughReads(text)).toHaveLength(count);
  });

  it('has no write through reads in apps or libs', () => {
    const found = ['apps', 'libs'].flatMap((folder) =>
      sourceFiles(join(ROOT, folder)).flatMap((file) =>
        writesThroughReads(readFileSync(file, 'utf8')).map((hit) => `${relative(ROOT, file)}:${hit}`),
      ),
    );
    expect(found).toEqual([]);
  });

  it('has no repository or read model that opens a transaction: the service that uses it does', () => {
    const found = sourceFiles(join(ROOT, 'apps'))
      .filter((file) => /\.(repository|read-model)\.ts$/.test(file))
      .filter((file) => /\btx\s*\.\s*transaction\s*\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(found).toEqual([]);
  });
});
