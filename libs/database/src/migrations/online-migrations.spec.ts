import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Online migrations (docs/operating/upgrades.md): a migration runs while bookings are taken, on tables of
 * millions of rows, so none may hold a lock that blocks writes for longer than an instant. This test reads every
 * migration's `up` and refuses the forms that do, each with why; a table the same migration creates is empty and
 * exempt. The migrations before the rule (GRANDFATHERED) ran on every database already and are never edited.
 */
const DIR = dirname(fileURLToPath(import.meta.url));

/** A blocking form, how to find it in one statement of `up` (whitespace collapsed), and what to write instead. */
interface Rule {
  readonly name: string;
  readonly why: string;
  /** The existing table the statement blocks, or null when it is not this form. */
  readonly blocks: (statement: string) => string | null;
}

const TABLE = String.raw`(?:ONLY\s+)?(?:IF\s+EXISTS\s+)?(?:"?public"?\.)?"?(\w+)"?`;

function alterOf(statement: string): { table: string; rest: string } | null {
  const match = new RegExp(String.raw`^ALTER TABLE ${TABLE}\s+(.*)$`, 'is').exec(statement);
  return match ? { table: match[1], rest: match[2] } : null;
}

function altering(test: (rest: string) => boolean): (statement: string) => string | null {
  return (statement) => {
    const alter = alterOf(statement);
    return alter && test(alter.rest) ? alter.table : null;
  };
}

const RULES: readonly Rule[] = [
  {
    name: 'an index built without CONCURRENTLY',
    why: 'CREATE INDEX holds a SHARE lock until the index is built: no insert, update or delete on the table meanwhile. Use CREATE INDEX CONCURRENTLY (with `transaction = false`).',
    blocks: (statement) =>
      new RegExp(String.raw`^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?!CONCURRENTLY).*?\sON\s+${TABLE}`, 'is').exec(statement)?.[1] ?? null,
  },
  {
    name: 'a foreign key or check added without NOT VALID',
    why: 'Adding it scans the whole table under a lock that blocks writes. Add it NOT VALID (instant), then VALIDATE CONSTRAINT in a later statement (which lets writes go on).',
    blocks: altering((rest) => /ADD\s+CONSTRAINT\s+.*\b(FOREIGN\s+KEY|CHECK)\b/is.test(rest) && !/NOT\s+VALID/i.test(rest)),
  },
  {
    name: 'a unique, primary-key or exclusion constraint that builds its own index',
    why: 'It builds the index under an ACCESS EXCLUSIVE lock. Build a unique index CONCURRENTLY first, then ADD CONSTRAINT … USING INDEX (an exclusion constraint has no such form: add it to a new table).',
    blocks: altering((rest) => /ADD\s+(CONSTRAINT\s+\S+\s+)?(UNIQUE|PRIMARY\s+KEY|EXCLUDE)\b/is.test(rest) && !/USING\s+INDEX/i.test(rest)),
  },
  {
    name: "a column's type changed",
    why: 'ALTER COLUMN … TYPE rewrites the table (and its indexes) under an ACCESS EXCLUSIVE lock. Add a new column, backfill it in batches, switch, then drop the old one.',
    blocks: altering((rest) => /ALTER\s+COLUMN\s+"?\w+"?\s+(SET\s+DATA\s+)?TYPE\b/is.test(rest)),
  },
  {
    name: 'SET NOT NULL',
    why: 'It scans the whole table under an ACCESS EXCLUSIVE lock. Add CHECK (col IS NOT NULL) NOT VALID, validate it, then SET NOT NULL (PostgreSQL then skips the scan).',
    blocks: altering((rest) => /SET\s+NOT\s+NULL/i.test(rest)),
  },
  {
    name: 'a column added with a volatile default',
    why: 'A default such as now() or gen_random_uuid() is computed per row: the table is rewritten under an ACCESS EXCLUSIVE lock (a constant default is instant). Add the column without it, then set the default and backfill.',
    blocks: altering((rest) =>
      /ADD\s+(COLUMN\s+)?.*\bDEFAULT\s+(now\s*\(|gen_random_uuid|random\s*\(|clock_timestamp|uuid_generate|statement_timestamp)/is.test(
        rest,
      ),
    ),
  },
  {
    name: 'a partition created on an existing partitioned table',
    why: 'CREATE TABLE … PARTITION OF takes an ACCESS EXCLUSIVE lock on the parent (no read or write of the whole table meanwhile) and scans its DEFAULT partition. Create the table alone with a CHECK matching the bound, then ATTACH PARTITION (SHARE UPDATE EXCLUSIVE on the parent).',
    blocks: (statement) =>
      new RegExp(String.raw`^CREATE TABLE (?:IF NOT EXISTS )?"?\w+"?\s+PARTITION\s+OF\s+${TABLE}`, 'is').exec(statement)?.[1] ?? null,
  },
  {
    name: 'a statement that locks or rewrites a whole table',
    why: 'VACUUM FULL, CLUSTER, LOCK TABLE and REINDEX without CONCURRENTLY hold locks that stop the table for as long as they run.',
    blocks: (statement) =>
      /^(VACUUM\s+FULL|CLUSTER|LOCK\s+(TABLE\s+)?)\s*/i.test(statement) || /^REINDEX\s+(?!.*CONCURRENTLY)/is.test(statement)
        ? (/\b"?(\w+)"?\s*;?$/.exec(statement)?.[1] ?? '?')
        : null,
  },
];

/** An existing table attached as a partition with no CHECK of its bound validated first (see blockingForms). */
const ATTACH_UNVALIDATED = 'a table attached as a partition without a validated CHECK of its bound';

/** The migrations before the rule: they ran on every database, and a migration is never edited once released. */
const GRANDFATHERED = new Set([
  '1795473026388-IdempotencyLocks.ts',
  '1795500000000-Holds.ts',
  '1795500200000-PublishableKeys.ts',
  '1795500300000-LoginFailuresPerClient.ts',
  '1795585466508-SeatsAndSeries.ts',
  '1795666056335-NoShows.ts',
  '1795708617467-QueueFailedIndexes.ts',
  '1795714333835-ReminderLeaseQueue.ts',
  '1795719072494-OutboxLeaseQueue.ts',
  '1795720000000-AttendeeErasure.ts',
  '1795830000000-AuditActorActionIndex.ts',
  '1795840000000-RetentionSweeps.ts',
  '1795875272929-AuditSettlementOrder.ts',
  '1795875782448-OutboxFailedIndex.ts',
]);

/** The statements of a migration's `up` (its SQL template literals), whitespace collapsed. */
function upStatements(source: string): string[] {
  const start = source.indexOf('async up(');
  const end = source.indexOf('async down(');
  const up = source.slice(start, end === -1 ? undefined : end);
  return [...up.matchAll(/`([^`]*)`/g)].map((match) => match[1].replace(/\s+/g, ' ').trim()).filter((text) => text.length > 0);
}

/** What in a migration's source blocks writes to an existing table: one line per statement and rule. */
function blockingForms(source: string): string[] {
  const statements = upStatements(source);
  const created = new Set(
    statements.flatMap((statement) => [...statement.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"?(\w+)"?/gi)].map((m) => m[1])),
  );
  const problems: string[] = [];
  for (const statement of statements) {
    for (const rule of RULES) {
      const table = rule.blocks(statement);
      if (table !== null && !created.has(table)) problems.push(`${rule.name} on ${table}: ${statement.slice(0, 120)}`);
    }
  }
  // ATTACH PARTITION scans the table it attaches, under an ACCESS EXCLUSIVE lock on it, unless a validated CHECK
  // implies the partition's bound: the same migration adds one NOT VALID and validates it first.
  for (const statement of statements) {
    const attached = new RegExp(String.raw`^ALTER TABLE ${TABLE}\s+ATTACH\s+PARTITION\s+${TABLE}`, 'is').exec(statement)?.[2];
    if (!attached || created.has(attached)) continue;
    const validated = statements.some(
      (other) => new RegExp(String.raw`^ALTER TABLE ${TABLE}\s+VALIDATE\s+CONSTRAINT\b`, 'is').exec(other)?.[1] === attached,
    );
    if (!validated) problems.push(`${ATTACH_UNVALIDATED} on ${attached}: ${statement.slice(0, 120)}`);
  }
  const concurrently = statements.filter((statement) => /\bCONCURRENTLY\b/i.test(statement) && !/^DROP/i.test(statement));
  if (concurrently.length > 0 && !/\btransaction\s*=\s*false\b/.test(source)) {
    problems.push('CONCURRENTLY needs `transaction = false` on the migration (PostgreSQL refuses it inside a transaction)');
  }
  // An interrupted CREATE INDEX CONCURRENTLY leaves an invalid index by that name: the retry must drop it first.
  for (const statement of concurrently) {
    const name = /INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?/i.exec(statement)?.[1];
    if (
      name &&
      !statements.some((other) => new RegExp(String.raw`^DROP INDEX CONCURRENTLY IF EXISTS (?:"?public"?\.)?"?${name}"?`, 'i').test(other))
    ) {
      problems.push(`${name}: DROP INDEX CONCURRENTLY IF EXISTS before building it (a run stopped halfway leaves an invalid index)`);
    }
  }
  return problems;
}

const files = readdirSync(DIR).filter((file) => /^\d+-\w+\.ts$/.test(file));

describe('online migrations: no migration blocks writes to an existing table', () => {
  it.each(files.filter((file) => !GRANDFATHERED.has(file)))('%s', (file) => {
    expect(blockingForms(readFileSync(join(DIR, file), 'utf8'))).toEqual([]);
  });

  it('every grandfathered migration exists and has a blocking form (the list only shrinks)', () => {
    expect([...GRANDFATHERED].filter((file) => !files.includes(file))).toEqual([]);
    expect([...GRANDFATHERED].filter((file) => blockingForms(readFileSync(join(DIR, file), 'utf8')).length === 0)).toEqual([]);
  });

  const migration = (up: string, extra = ''): string =>
    `export class M implements MigrationInterface {\n${extra}\n  public async up(q: QueryRunner): Promise<void> {\n${up}\n  }\n  public async down(q: QueryRunner): Promise<void> {\n    await q.query(\`DROP TABLE x\`);\n  }\n}`;
  const q = (sql: string): string => `    await q.query(\`\n            ${sql}\n        \`);`;

  it.each([
    ['CREATE INDEX "b_idx" ON "bookings" ("created_at")', 'an index built without CONCURRENTLY on bookings'],
    ['CREATE UNIQUE INDEX "b_idx" ON "bookings" ("x")', 'an index built without CONCURRENTLY on bookings'],
    [
      'ALTER TABLE "bookings" ADD CONSTRAINT "FK_x" FOREIGN KEY ("event_type_id") REFERENCES "event_types"("id")',
      'a foreign key or check added without NOT VALID on bookings',
    ],
    ['ALTER TABLE "bookings" ADD CONSTRAINT "c" CHECK ("a" > 0)', 'a foreign key or check added without NOT VALID on bookings'],
    [
      'ALTER TABLE "bookings" ADD CONSTRAINT "u" UNIQUE ("a")',
      'a unique, primary-key or exclusion constraint that builds its own index on bookings',
    ],
    [
      'ALTER TABLE "booking_hosts" ADD CONSTRAINT "x" EXCLUDE USING gist ("host_user_id" WITH =, "during" WITH &&)',
      'a unique, primary-key or exclusion constraint that builds its own index on booking_hosts',
    ],
    ['ALTER TABLE "bookings" ALTER COLUMN "notes" TYPE varchar(500)', "a column's type changed on bookings"],
    ['ALTER TABLE "bookings" ALTER COLUMN "notes" SET NOT NULL', 'SET NOT NULL on bookings'],
    ['ALTER TABLE "bookings" ADD "token" uuid NOT NULL DEFAULT gen_random_uuid()', 'a column added with a volatile default on bookings'],
    [
      'ALTER TABLE "bookings" ADD "seen_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()',
      'a column added with a volatile default on bookings',
    ],
    ['VACUUM FULL "bookings"', 'a statement that locks or rewrites a whole table on bookings'],
    ['REINDEX TABLE "bookings"', 'a statement that locks or rewrites a whole table on bookings'],
    [
      `CREATE TABLE "audit_entries_p2030_01" PARTITION OF "audit_entries" FOR VALUES FROM ('2030-01-01') TO ('2030-02-01')`,
      'a partition created on an existing partitioned table on audit_entries',
    ],
    [
      `ALTER TABLE "audit_entries" ATTACH PARTITION "old_entries" FOR VALUES FROM (MINVALUE) TO ('2030-01-01')`,
      `${ATTACH_UNVALIDATED} on old_entries`,
    ],
  ])('refuses %s', (sql, problem) => {
    const problems = blockingForms(migration(q(sql)));
    expect(problems).toHaveLength(1);
    expect(problems[0].startsWith(`${problem}:`)).toBe(true);
  });

  it.each([
    [
      'a new table and its indexes',
      [q('CREATE TABLE "things" ("id" text NOT NULL)'), q('CREATE INDEX "things_idx" ON "things" ("id")')].join('\n'),
    ],
    ['a nullable column', q('ALTER TABLE "bookings" ADD "locale" text')],
    ['a constant default', q(`ALTER TABLE "organizations" ADD "default_locale" text NOT NULL DEFAULT 'en'`)],
    [
      'a foreign key NOT VALID, validated later',
      [
        q('ALTER TABLE "b" ADD CONSTRAINT "f" FOREIGN KEY ("x") REFERENCES "y"("id") NOT VALID'),
        q('ALTER TABLE "b" VALIDATE CONSTRAINT "f"'),
      ].join('\n'),
    ],
    ['a unique constraint on a concurrently built index', q('ALTER TABLE "bookings" ADD CONSTRAINT "u" UNIQUE USING INDEX "u_idx"')],
    [
      'an existing table attached as a partition after its bound is validated, and partitions of a new parent',
      [
        q(`ALTER TABLE "old_entries" ADD CONSTRAINT "b" CHECK ("at" < '2030-01-01') NOT VALID`),
        q('ALTER TABLE "old_entries" VALIDATE CONSTRAINT "b"'),
        q('CREATE TABLE "entries" (LIKE "old_entries") PARTITION BY RANGE ("at")'),
        q(`ALTER TABLE "entries" ATTACH PARTITION "old_entries" FOR VALUES FROM (MINVALUE) TO ('2030-01-01')`),
        q(`CREATE TABLE "entries_p2030_01" PARTITION OF "entries" FOR VALUES FROM ('2030-01-01') TO ('2030-02-01')`),
      ].join('\n'),
    ],
  ])('allows %s', (_name, up) => {
    expect(blockingForms(migration(up))).toEqual([]);
  });

  it('an index built CONCURRENTLY needs transaction = false and a DROP … IF EXISTS before it', () => {
    const create = q('CREATE INDEX CONCURRENTLY "b_idx" ON "bookings" ("created_at")');
    const drop = q('DROP INDEX CONCURRENTLY IF EXISTS "b_idx"');
    expect(blockingForms(migration([drop, create].join('\n'), '  transaction = false;'))).toEqual([]);
    expect(blockingForms(migration([drop, create].join('\n')))).toEqual([
      'CONCURRENTLY needs `transaction = false` on the migration (PostgreSQL refuses it inside a transaction)',
    ]);
    expect(blockingForms(migration(create, '  transaction = false;'))).toEqual([
      'b_idx: DROP INDEX CONCURRENTLY IF EXISTS before building it (a run stopped halfway leaves an invalid index)',
    ]);
  });
});
