/**
 * The audit log at scale (issue 37): GET /v1/audit-log pages over 10 million entries, each filter of the contract
 * alone and together, through the whole app over HTTP. Goal: a filtered page (50 entries) under 50 ms (p99).
 *
 * The entries are loaded by SQL (the indexes of the migration dropped during the load and built after, as a restore
 * would): 100 organizations, the measured one holding half of them (5 million, 40 actions, 60 actors, 200,000
 * resources, one entry every 3 seconds over the last 6 months). BENCH_AUDIT_ROWS changes the total.
 *
 *   DATABASE_URL=postgres://… npm run bench:audit
 */
import pg from 'pg';
import { reportGoal } from './support/goals.js';
import { machine, row, startBenchApp } from './support/harness.js';

const TOTAL = Number(process.env.BENCH_AUDIT_ROWS ?? 10_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const CHUNK = 1_000_000;
const GOAL_MS = 50;

const INDEXES = [
  `CREATE INDEX "audit_entries_page_idx" ON "audit_entries" ("organization_id", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
  `CREATE INDEX "audit_entries_action_idx" ON "audit_entries" ("organization_id", "action", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
  `CREATE INDEX "audit_entries_actor_idx" ON "audit_entries" ("organization_id", "actor_id", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
  `CREATE INDEX "audit_entries_actor_action_idx" ON "audit_entries" ("organization_id", "actor_id", "action", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
  `CREATE INDEX "audit_entries_resource_idx" ON "audit_entries" ("organization_id", "resource_id", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
  `CREATE INDEX "audit_entries_retention_idx" ON "audit_entries" ("occurred_at")`,
];

async function load(client: pg.Client, organizationId: string): Promise<number> {
  const started = Date.now();
  await client.query(`SET maintenance_work_mem = '256MB'`);
  for (const name of ['page', 'action', 'actor', 'actor_action', 'resource', 'retention'])
    await client.query(`DROP INDEX "audit_entries_${name}_idx"`);
  await client.query(
    `INSERT INTO organizations (id, name, slug, created_at, updated_at)
     SELECT 'org_bench' || lpad(o::text, 20, '0'), 'Bench ' || o, 'bench-' || o, now(), now() FROM generate_series(1, 99) AS o`,
  );
  for (let first = 1; first <= TOTAL; first += CHUNK) {
    const last = Math.min(TOTAL, first + CHUNK - 1);
    // Even rows are the measured organization's (one every 3 s back from now), odd ones spread over the 99 others.
    await client.query(
      `INSERT INTO audit_entries (id, organization_id, occurred_at, action, actor_type, actor_id, actor_label, resource_type, resource_id,
                                  request_id, ip, user_agent, changes)
       SELECT 'aud_' || lpad(g::text, 24, '0'),
              CASE WHEN g % 2 = 0 THEN $1 ELSE 'org_bench' || lpad((1 + g % 99)::text, 20, '0') END,
              now() - (g / 2) * interval '3 seconds',
              'resource' || (g % 8) || '.verb' || (g % 5),
              'user', 'usr_bench' || lpad((g % 60)::text, 20, '0'), 'member' || (g % 60) || '@example.com',
              'resource' || (g % 8), 'res_bench' || lpad((g % 200000)::text, 20, '0'),
              'req_' || g, '203.0.113.' || (g % 250), 'Mozilla/5.0 (bench)',
              CASE WHEN g % 5 = 1 THEN '{"title": {"from": "Before", "to": "After"}}'::jsonb END
         FROM generate_series($2::bigint, $3::bigint) AS g`,
      [organizationId, first, last],
    );
    process.stdout.write(`loaded ${last.toLocaleString('en')} entries\n`);
  }
  for (const index of INDEXES) await client.query(index);
  await client.query('VACUUM ANALYZE audit_entries');
  return Date.now() - started;
}

/** The execution time PostgreSQL reports for the list's statement with these filters (the first page, 51 rows). */
async function statementMs(client: pg.Client, organizationId: string, query: URLSearchParams): Promise<number> {
  const conditions = ['organization_id = $1', 'tx_id < pg_snapshot_xmax(pg_current_snapshot())'];
  const params: unknown[] = [organizationId];
  const add = (sql: string, value: unknown): void => {
    params.push(value);
    conditions.push(sql.replace('?', `$${params.length}`));
  };
  const value = (name: string): string | null => query.get(name);
  if (value('action')) add('action = ?', value('action'));
  if (value('actorId')) add('actor_id = ?', value('actorId'));
  if (value('resourceId')) add('resource_id = ?', value('resourceId'));
  if (value('from')) add('occurred_at >= ?', value('from'));
  if (value('to')) add('occurred_at < ?', value('to'));
  const plan = await client.query(
    `EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM audit_entries WHERE ${conditions.join(' AND ')} ORDER BY tx_id DESC, occurred_at DESC, id DESC LIMIT 51`,
    params,
  );
  return (plan.rows[0]['QUERY PLAN'] as { 'Execution Time': number }[])[0]['Execution Time'];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const bench = await startBenchApp();
  try {
    const registered = await fetch(`${bench.url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'audit-bench@example.com', password: 'correct horse battery', organizationName: 'Audit bench' }),
    });
    const owner = (await registered.json()) as { accessToken: string; organization: { id: string } };
    const client = new pg.Client({ connectionString: bench.databaseUrl });
    await client.connect();
    const loadMs = await load(client, owner.organization.id);
    const size = (await client.query(`SELECT pg_size_pretty(pg_total_relation_size('audit_entries')) AS size`)).rows[0].size as string;

    const day = new Date(Date.now() - 30 * 86_400_000);
    const from = day.toISOString();
    const to = new Date(day.getTime() + 86_400_000).toISOString();
    const cases: [string, string][] = [
      ['no filter (newest 50)', ''],
      ['action', 'action=resource2.verb2'],
      ['actorId', 'actorId=usr_bench00000000000000000042'],
      ['resourceId', 'resourceId=res_bench00000000000000123456'],
      ['from & to (one day, a month ago)', `from=${from}&to=${to}`],
      ['action & from & to', `action=resource2.verb2&from=${from}&to=${to}`],
      ['action & actorId', 'action=resource2.verb2&actorId=usr_bench00000000000000000042'],
      ['actorId & resourceId', 'actorId=usr_bench00000000000000000042&resourceId=res_bench00000000000000123462'],
      // Two filters of 1/40 and 1/60 of the organization that never occur together (g % 40 = 2 and g % 60 = 4 have no
      // common g): the walk of one index finds nothing of the other.
      ['action & actorId that never coincide (the worst case)', 'action=resource2.verb2&actorId=usr_bench00000000000000000004'],
      ['the same & from & to', `action=resource2.verb2&actorId=usr_bench00000000000000000004&from=${from}&to=${to}`],
      ['action & resourceId that never coincide', 'action=resource2.verb2&resourceId=res_bench00000000000000123462'],
      [
        'action & actorId & resourceId',
        'action=resource2.verb2&actorId=usr_bench00000000000000000042&resourceId=res_bench00000000000000123462',
      ],
    ];
    const headers = { authorization: `Bearer ${owner.accessToken}` };
    const results: { name: string; p50: number; p99: number; entries: number; nextPage: number; dbMedian: number; dbMax: number }[] = [];
    for (const [name, query] of cases) {
      const times: number[] = [];
      let entries = 0;
      let cursor: string | null = null;
      for (let i = 0; i < RUNS + 3; i++) {
        const started = performance.now();
        const res = await fetch(`${bench.url}/v1/audit-log?limit=50${query ? `&${query}` : ''}`, { headers });
        const body = (await res.json()) as { entries: unknown[]; nextCursor: string | null };
        if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
        if (i >= 3) times.push(performance.now() - started);
        entries = body.entries.length;
        cursor = body.nextCursor;
      }
      // The page after the first through its cursor (keyset: the same cost at any depth).
      let nextPage = 0;
      if (cursor) {
        const started = performance.now();
        await (await fetch(`${bench.url}/v1/audit-log?limit=50&cursor=${cursor}${query ? `&${query}` : ''}`, { headers })).json();
        nextPage = performance.now() - started;
      }
      times.sort((a, b) => a - b);
      // The statement alone, as PostgreSQL times it (EXPLAIN ANALYZE of the list's query, the same text as
      // AuditRepository.page): what the page costs the database, apart from the HTTP round trip and the machine's load.
      const db: number[] = [];
      for (let i = 0; i < 10; i++) db.push(await statementMs(client, owner.organization.id, new URLSearchParams(query)));
      db.sort((a, b) => a - b);
      results.push({
        name,
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        entries,
        nextPage,
        dbMedian: percentile(db, 50),
        dbMax: db[db.length - 1],
      });
    }

    console.log(`\n${machine()}; ${TOTAL.toLocaleString('en')} entries (${size}), loaded and indexed in ${(loadMs / 1000).toFixed(0)} s\n`);
    console.log(row(['filter', 'entries on the page', 'p50 ms', 'p99 ms', 'next page ms', 'statement median / max ms']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:']));
    for (const r of results) {
      console.log(
        row([
          r.name,
          r.entries,
          r.p50.toFixed(1),
          r.p99.toFixed(1),
          r.nextPage.toFixed(1),
          `${r.dbMedian.toFixed(2)} / ${r.dbMax.toFixed(2)}`,
        ]),
      );
    }
    await client.end();
    const worst = Math.max(...results.map((r) => r.p99));
    reportGoal({
      bench: 'audit',
      goal: `GET /v1/audit-log, a filtered page at ${TOTAL.toLocaleString('en')} entries, p99 < ${GOAL_MS} ms`,
      result: `worst p99 ${worst.toFixed(1)} ms`,
      met: worst < GOAL_MS,
    });
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
