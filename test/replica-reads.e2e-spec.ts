import { createServer, type Server, type Socket } from 'node:net';
import { jest } from '@jest/globals';
import pg from 'pg';
import { ReplicaReads } from '@app/database';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';

/*
 * Reads from standbys (DATABASE_REPLICA_URLS, issue 54 item 4) without a cluster: the "standby" is the primary's own
 * database (a node not in recovery answers its own WAL position), beside a URL nothing listens on. The routing, the
 * write positions, the LSN gate and the fallback are the same code the Patroni test (replica-reads-cluster) runs on a
 * real standby.
 */

/** Nothing listens there: connecting is refused at once. */
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/nothing';

describe('reads from replicas: routing, write positions, fallback', () => {
  let plain: TestApp;
  let routed: TestApp;
  let org: BookingOrg;
  let admin: pg.Client;
  /** Takes connections and never answers: a standby cut off without a reset. */
  let silent: Server;
  const held: Socket[] = [];

  beforeAll(async () => {
    silent = createServer((socket) => held.push(socket));
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
    const silentUrl = `postgres://postgres@127.0.0.1:${(silent.address() as { port: number }).port}/nothing`;
    plain = await startTestApp();
    routed = await startTestApp({
      databaseUrl: plain.databaseUrl,
      clock: plain.clock,
      env: { DATABASE_REPLICA_URLS: `${UNREACHABLE},${silentUrl},${plain.databaseUrl}` },
    });
    admin = new pg.Client({ connectionString: plain.databaseUrl });
    await admin.connect();
    org = await bookingOrg(plain);
  });

  afterAll(async () => {
    await admin?.end();
    await Promise.allSettled([routed?.close(), plain?.close()]);
    for (const socket of held) socket.destroy();
    await new Promise((closed) => silent?.close(closed));
  });

  const key = () => ({ apiKey: org.apiKey });
  const counts = (t: TestApp) => ({ ...t.app.get(ReplicaReads).counts });
  async function starts(t: TestApp, date = '2027-03-02'): Promise<string[]> {
    const res = await t.http.get(`/v1/availability?eventTypeId=${org.eventTypeId}&start=${date}&end=${date}&timezone=UTC`, key());
    expect(res.status).toBe(200);
    return res.body.slots.map((slot: { start: string }) => slot.start.slice(11, 16));
  }
  async function positions(): Promise<Record<string, string>> {
    const rows = await admin.query<{ organization_id: string; lsn: string }>(
      'SELECT organization_id, lsn::text FROM organization_write_positions',
    );
    return Object.fromEntries(rows.rows.map((row) => [row.organization_id, row.lsn]));
  }

  it('without DATABASE_REPLICA_URLS nothing changes: no write position is recorded, every read is the pool’s', async () => {
    expect(plain.app.get(ReplicaReads).enabled).toBe(false);
    const booked = await plain.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T09:00:00Z'), key());
    expect(booked.status).toBe(201);
    expect(await starts(plain)).not.toContain('09:00');
    expect(await positions()).toEqual({});
    expect(counts(plain)).toEqual({ replica: 0, primary: 0 });
  });

  it('a write through an instance with replicas records the organization’s position before it answers; its reads go to the standby', async () => {
    const before = counts(routed);
    const booked = await routed.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), key());
    expect(booked.status).toBe(201);
    const recorded = await positions();
    expect(Object.keys(recorded)).toEqual([org.owner.organizationId]);

    // The refusing and the silent URL are tried first (round robin), each once: the answers are the standby's, no
    // error shows, and the silent one costs a read at most its connect timeout (500 ms).
    const began = performance.now();
    expect(await starts(routed)).not.toContain('10:00');
    expect(await starts(routed)).not.toContain('09:00');
    expect(performance.now() - began).toBeLessThan(2500);
    const list = await routed.http.get('/v1/bookings?limit=100', key());
    expect(list.status).toBe(200);
    expect(list.body.bookings.map((b: { id: string }) => b.id)).toContain(booked.body.booking.id);
    const audit = await routed.http.get('/v1/audit-log?limit=50', { token: org.owner.accessToken });
    expect(audit.status).toBe(200);
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toContain('booking.created');
    // The export: its boundary and its one batch on the standby connection it holds.
    const exported = await fetch(`${routed.url}/v1/audit-log/export`, { headers: { authorization: `Bearer ${org.owner.accessToken}` } });
    expect(exported.status).toBe(200);
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string });
    expect(lines.map((entry) => entry.action)).toEqual(audit.body.entries.map((e: { action: string }) => e.action));
    const after = counts(routed);
    expect(after.replica - before.replica).toBe(6);
    expect(after.primary).toBe(before.primary);
  });

  it('an audit log page after a cursor reads the primary (a standby’s boundary could fall below the cursor)', async () => {
    const first = await routed.http.get('/v1/audit-log?limit=1', { token: org.owner.accessToken });
    expect(first.status).toBe(200);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const before = counts(routed);
    const next = await routed.http.get(`/v1/audit-log?limit=1&cursor=${encodeURIComponent(first.body.nextCursor as string)}`, {
      token: org.owner.accessToken,
    });
    expect(next.status).toBe(200);
    expect(next.body.entries).toHaveLength(1);
    const after = counts(routed);
    // Not routed at all: neither counter moves (the first page's read counted as a replica read).
    expect([after.replica - before.replica, after.primary - before.primary]).toEqual([0, 0]);
  });

  it('a standby that has not replayed past the organization’s last write is skipped: the primary answers', async () => {
    await admin.query(`UPDATE organization_write_positions SET lsn = 'FFFFFFFF/0' WHERE organization_id = $1`, [org.owner.organizationId]);
    const before = counts(routed);
    expect(await starts(routed)).not.toContain('10:00');
    const after = counts(routed);
    expect([after.replica - before.replica, after.primary - before.primary]).toEqual([0, 1]);
    await admin.query(`DELETE FROM organization_write_positions`);
  });

  it('an attendee’s write (a token, no principal) records the organization its token named', async () => {
    await admin.query(`DELETE FROM organization_write_positions`);
    const booked = await routed.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z'), key());
    expect(booked.status).toBe(201);
    await admin.query(`DELETE FROM organization_write_positions`);
    const { id, confirmationToken } = booked.body.booking as { id: string; confirmationToken: string };
    expect((await routed.http.post(`/v1/bookings/${id}/cancel`, { token: confirmationToken })).status).toBe(200);
    expect(Object.keys(await positions())).toEqual([org.owner.organizationId]);
    expect(await starts(routed)).toContain('11:00');
  });

  it('the fingerprint rides in the key’s lookup only without replicas: where they serve reads, a standby reads it', async () => {
    /** The statements that looked up the key for one warm answer of `t`. */
    async function keyLookups(t: TestApp): Promise<string[]> {
      await starts(t, '2027-03-03');
      const query = jest.spyOn(pg.Client.prototype, 'query');
      try {
        await starts(t, '2027-03-03');
        return query.mock.calls
          .map(([first]) => String(typeof first === 'string' ? first : (first as { text?: string }).text))
          .filter((text) => text.includes('FROM api_keys k'));
      } finally {
        query.mockRestore();
      }
    }
    const [withoutReplicas] = await keyLookups(plain);
    expect(withoutReplicas).toContain('FROM availability_versions');
    const before = counts(routed).replica;
    const [withReplicas] = await keyLookups(routed);
    expect(withReplicas).not.toContain('FROM availability_versions');
    expect(counts(routed).replica).toBeGreaterThan(before);
  });
});
