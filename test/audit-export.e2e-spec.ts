import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pg from 'pg';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner, type RegisteredOwner } from './support/factories.js';

const ENTRIES = 200_000;

/** A full collection on demand, so that what is measured is what the process holds, not garbage not yet collected. */
setFlagsFromString('--expose_gc');
const collect = runInNewContext('gc') as () => void;
const liveHeap = (): number => {
  collect();
  return process.memoryUsage().heapUsed;
};

/**
 * Contract § 18: the export streams a year of entries without holding them in memory. 200,000 entries (~90 MB of
 * NDJSON) are read through the socket while the heap of the process (the app runs in it) is sampled: it must stay far
 * below what holding them would take.
 */
describe('audit log export', () => {
  let t: TestApp;
  let owner: RegisteredOwner;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
    // Its own connection: the app's pool has a statement timeout meant for requests.
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    await client.query(
      `INSERT INTO audit_entries (id, organization_id, occurred_at, action, actor_type, actor_id, actor_label, resource_type, resource_id,
                                  request_id, ip, user_agent, changes)
       SELECT 'aud_' || lpad(g::text, 24, '0'), $1, $3::timestamptz - g * interval '100 milliseconds', 'event_type.updated', 'user', $2,
              'someone@example.com', 'event_type', 'evt_' || lpad((g % 1000)::text, 24, '0'), 'req_' || g, '203.0.113.7',
              'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
              '{"title": {"from": "Intro call with the team", "to": "Intro call"}, "durationMinutes": {"from": 30, "to": 45}}'
         FROM generate_series(1, ${ENTRIES}) AS g`,
      [owner.organizationId, owner.userId, t.clock.now()],
    );
    await client.end();
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  it('streams 200,000 entries as NDJSON in bounded memory, newest first', async () => {
    const baseline = liveHeap();
    let peak = baseline;
    const res = await fetch(`${t.url}/v1/audit-log/export`, {
      // Uncompressed: what is measured is the export, not gzip's CPU.
      headers: { authorization: `Bearer ${owner.accessToken}`, 'accept-encoding': 'identity' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const decoder = new TextDecoder();
    let lines = 0;
    let bytes = 0;
    let tail = '';
    let first: string | null = null;
    let last = '';
    let previous = '';
    let ordered = true;
    let chunks = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      // While the export is half read, the server holds what it holds: sample the live heap now and then.
      if (++chunks % 1000 === 0) peak = Math.max(peak, liveHeap());
      bytes += chunk.byteLength;
      const text = tail + decoder.decode(chunk, { stream: true });
      const parts = text.split('\n');
      tail = parts.pop()!;
      for (const line of parts) {
        last = line;
        lines++;
        if (line.includes('"action":"user.registered"')) continue;
        const occurredAt = line.slice(line.indexOf('"occurredAt":"') + 14, line.indexOf('"occurredAt":"') + 38);
        if (previous !== '' && occurredAt > previous) ordered = false;
        previous = occurredAt;
        first ??= line;
      }
    }
    expect(tail).toBe('');
    // The registration's own entry and the 200,000, in the order they became visible: the 200,000 (one transaction,
    // newest time first) after the registration, whatever their times.
    expect(lines).toBe(ENTRIES + 1);
    expect(ordered).toBe(true);
    expect(bytes).toBeGreaterThan(60 * 1024 * 1024);
    expect(JSON.parse(first!)).toMatchObject({ id: `aud_${'1'.padStart(24, '0')}` });
    expect(JSON.parse(last)).toMatchObject({ action: 'user.registered' });
    // Holding the export (or its rows) would take more than its 60+ MB; streaming it holds a few batches.
    expect(chunks).toBeGreaterThan(1000);
    expect(peak - baseline).toBeLessThan(16 * 1024 * 1024);
  }, 120_000);
});
