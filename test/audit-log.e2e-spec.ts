import pg from 'pg';
import { DataSource } from 'typeorm';
import { PeriodicJobs } from '../apps/api/src/jobs/index.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg } from './support/bookings.js';
import { addMember, createApiKey, registerOwner, type RegisteredOwner } from './support/factories.js';
import { createEventType } from './support/scheduling.js';

interface Entry {
  id: string;
  occurredAt: string;
  action: string;
  actor: { type: string; id: string | null; label: string | null };
  resource: { type: string; id: string | null };
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  changes?: Record<string, { from: unknown; to: unknown }>;
  details?: Record<string, unknown>;
}

/** Contract § 18, the audit log: what an entry holds, what it never holds, and reading it. */
describe('audit log', () => {
  let t: TestApp;
  let db: DataSource;
  let owner: RegisteredOwner;
  const auth = (): { token: string } => ({ token: owner.accessToken });

  const entriesOf = async (requestId: string): Promise<Entry[]> => {
    const res = await t.http.get(`/v1/audit-log?limit=200`, auth());
    expect(res.status).toBe(200);
    return (res.body.entries as Entry[]).filter((entry) => entry.requestId === requestId);
  };
  const withId = (requestId: string, extra: Record<string, string> = {}): { headers: Record<string, string>; token: string } => ({
    ...auth(),
    headers: { 'x-request-id': requestId, ...extra },
  });

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    owner = await registerOwner(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  it('records who, what, from where, with the changes of an update', async () => {
    const id = await createEventType(t, auth(), { title: 'Intro', durationMinutes: 30 });
    const res = await t.http.patch(
      `/v1/event-types/${id}`,
      { title: 'Intro call', durationMinutes: 45, description: undefined },
      withId('upd-1', { 'user-agent': 'audit-test/1.0' }),
    );
    expect(res.status).toBe(200);
    const [entry] = await entriesOf('upd-1');
    expect(entry).toEqual({
      id: expect.stringMatching(/^aud_[0-9A-Za-z]{24}$/),
      occurredAt: t.clock.now().toISOString(),
      action: 'event_type.updated',
      actor: { type: 'user', id: owner.userId, label: owner.email },
      resource: { type: 'event_type', id },
      requestId: 'upd-1',
      ip: '127.0.0.1',
      userAgent: 'audit-test/1.0',
      changes: { title: { from: 'Intro', to: 'Intro call' }, durationMinutes: { from: 30, to: 45 } },
    });
  });

  it('names an API key actor by its name and prefix, and a role change by its from and to', async () => {
    const key = await createApiKey(t.http, owner.accessToken, { name: 'backend', scopes: ['team:write', 'team:read'] });
    const member = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    const res = await t.http.patch(
      `/v1/organizations/${owner.organizationId}/members/${member.memberId}`,
      { role: 'admin' },
      { apiKey: key.apiKey, headers: { 'x-request-id': 'role-1' } },
    );
    expect(res.status).toBe(200);
    const [entry] = await entriesOf('role-1');
    expect(entry.action).toBe('member.role_changed');
    expect(entry.actor).toEqual({ type: 'api_key', id: key.id, label: `backend (${key.apiKey.slice(0, 12)})` });
    expect(entry.resource).toEqual({ type: 'member', id: member.memberId });
    expect(entry.changes).toEqual({ role: { from: 'member', to: 'admin' } });
  });

  it('never stores a secret: webhook URLs, keys and secrets are [redacted]', async () => {
    const created = await t.http.post(
      '/v1/webhooks',
      { url: 'http://127.0.0.1:9/hook?token=abc', events: ['booking.created'] },
      withId('wh-create'),
    );
    expect(created.status).toBe(201);
    const res = await t.http.patch(
      `/v1/webhooks/${created.body.webhook.id}`,
      { url: 'http://127.0.0.1:9/other?token=def', description: 'Orders' },
      withId('wh-update'),
    );
    expect(res.status).toBe(200);
    const [entry] = await entriesOf('wh-update');
    expect(entry.changes).toEqual({
      url: { from: '[redacted]', to: '[redacted]' },
      description: { from: null, to: 'Orders' },
    });
    // Plain substrings, not a pattern: the secret is base64 (a `+` in it is a regex quantifier).
    const stored: { n: string }[] = await db.query(
      `SELECT count(*) AS n FROM audit_entries a
        WHERE strpos(row_to_json(a)::text, 'token=') > 0 OR strpos(row_to_json(a)::text, $1) > 0`,
      [created.body.secret],
    );
    expect(Number(stored[0].n)).toBe(0);
  });

  it('records the client address as TRUST_PROXY derives it', async () => {
    const forwarded = { 'x-forwarded-for': '198.51.100.7' };
    await t.http.patch('/v1/users/me', { firstName: 'Direct' }, withId('ip-direct', forwarded));
    const behind = await startTestApp({ databaseUrl: t.databaseUrl, env: { TRUST_PROXY: '1', RUN_WORKERS: 'false' }, clock: t.clock });
    try {
      const res = await behind.http.patch('/v1/users/me', { firstName: 'Proxied' }, withId('ip-proxied', forwarded));
      expect(res.status).toBe(200);
    } finally {
      await behind.close();
    }
    expect((await entriesOf('ip-direct'))[0].ip).toBe('127.0.0.1');
    expect((await entriesOf('ip-proxied'))[0]).toMatchObject({
      ip: '198.51.100.7',
      changes: { firstName: { from: 'Direct', to: 'Proxied' } },
    });
  });

  it('a write that fails leaves no entry (the entry is written in its transaction)', async () => {
    await createEventType(t, auth(), { slug: 'taken-slug' });
    const other = await createEventType(t, auth(), { slug: 'other-slug' });
    const clash = await t.http.patch(`/v1/event-types/${other}`, { slug: 'taken-slug' }, withId('clash-1'));
    expect(clash.status).toBe(409);
    const again = await t.http.post(
      '/v1/auth/register',
      { email: owner.email, password: 'correct horse battery', organizationName: 'Dup' },
      {
        headers: { 'x-request-id': 'dup-1' },
      },
    );
    expect(again.status).toBe(409);
    const rows: unknown[] = await db.query(`SELECT id FROM audit_entries WHERE request_id IN ('clash-1', 'dup-1')`);
    expect(rows).toEqual([]);
  });

  it('records sign-ins and failed sign-ins (the failure although its request fails); an unknown email has no organization', async () => {
    const failed = await t.http.post(
      '/v1/auth/login',
      { email: owner.email, password: 'not the password' },
      { headers: { 'x-request-id': 'fail-1' } },
    );
    expect(failed.status).toBe(401);
    const unknown = await t.http.post(
      '/v1/auth/login',
      { email: 'nobody@example.com', password: 'not the password' },
      {
        headers: { 'x-request-id': 'fail-2' },
      },
    );
    expect(unknown.status).toBe(401);
    const ok = await t.http.post(
      '/v1/auth/login',
      { email: owner.email, password: owner.password },
      { headers: { 'x-request-id': 'ok-1' } },
    );
    expect(ok.status).toBe(200);
    const [failure] = await entriesOf('fail-1');
    expect(failure).toMatchObject({
      action: 'session.failed',
      actor: { type: 'user', id: owner.userId, label: owner.email },
      ip: '127.0.0.1',
    });
    expect(failure.changes).toBeUndefined();
    expect(await db.query(`SELECT id FROM audit_entries WHERE request_id = 'fail-2'`)).toEqual([]);
    const [signIn] = await entriesOf('ok-1');
    expect(signIn).toMatchObject({ action: 'session.created', resource: { type: 'session', id: ok.body.refreshToken.split('.')[0] } });
    expect(JSON.stringify([failure, signIn])).not.toContain(owner.password);
  });

  it('filters by action, actor, resource and time, newest first', async () => {
    const id = await createEventType(t, auth(), { slug: 'filtered' });
    t.clock.advance(60_000);
    await t.http.patch(`/v1/event-types/${id}`, { title: 'One' }, auth());
    t.clock.advance(60_000);
    await t.http.patch(`/v1/event-types/${id}`, { title: 'Two' }, auth());
    const byResource = (await t.http.get(`/v1/audit-log?resourceId=${id}`, auth())).body.entries as Entry[];
    expect(byResource.map((entry) => entry.action)).toEqual(['event_type.updated', 'event_type.updated', 'event_type.created']);
    expect(byResource.map((entry) => entry.changes?.title?.to ?? null)).toEqual(['Two', 'One', null]);
    const byAction = (await t.http.get(`/v1/audit-log?action=event_type.updated&resourceId=${id}`, auth())).body.entries as Entry[];
    expect(byAction).toHaveLength(2);
    const from = new Date(t.clock.now().getTime() - 90_000).toISOString();
    const since = (await t.http.get(`/v1/audit-log?resourceId=${id}&from=${from}`, auth())).body.entries as Entry[];
    expect(since.map((entry) => entry.changes?.title?.to)).toEqual(['Two', 'One']);
    const until = (await t.http.get(`/v1/audit-log?resourceId=${id}&to=${from}`, auth())).body.entries as Entry[];
    expect(until.map((entry) => entry.action)).toEqual(['event_type.created']);
    const byActor = (await t.http.get(`/v1/audit-log?actorId=${owner.userId}&limit=200`, auth())).body.entries as Entry[];
    expect(byActor.length).toBeGreaterThan(3);
    expect(byActor.every((entry) => entry.actor.id === owner.userId)).toBe(true);
    expect((await t.http.get(`/v1/audit-log?actorId=usr_nobody000000000000000000`, auth())).body).toEqual({
      entries: [],
      nextCursor: null,
    });
  });

  it('pages with a stable cursor: entries written meanwhile are neither skipped nor repeated', async () => {
    const other = await registerOwner(t.http);
    const token = { token: other.accessToken };
    for (let i = 0; i < 7; i++) {
      await createEventType(t, token, { slug: `page-${i}` });
      if (i % 2 === 0) t.clock.advance(1000); // several entries share an instant: the id orders them
    }
    const before = ((await t.http.get('/v1/audit-log?limit=200', token)).body.entries as Entry[]).map((entry) => entry.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { body: { entries: Entry[]; nextCursor: string | null } } = await t.http.get(
        `/v1/audit-log?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        token,
      );
      seen.push(...res.body.entries.map((entry) => entry.id));
      cursor = res.body.nextCursor;
      pages++;
      // New entries arrive between pages (newer than every page read so far).
      await createEventType(t, token, { slug: `late-${pages}` });
    } while (cursor !== null);
    expect(seen).toEqual(before);
    expect(pages).toBe(Math.ceil(before.length / 3));
  });

  it('pages in the order entries became visible: one that commits late is never skipped by a poller or a cursor', async () => {
    const other = await registerOwner(t.http);
    const token = { token: other.accessToken };
    const list = async (query = 'limit=200'): Promise<{ entries: Entry[]; nextCursor: string | null }> => {
      const res = await t.http.get(`/v1/audit-log?${query}`, token);
      expect(res.status).toBe(200);
      return res.body as { entries: Entry[]; nextCursor: string | null };
    };
    // A poller re-reads page 1 until it meets the newest id it saw last time.
    let lastSeen = (await list()).entries[0].id;
    const poll = async (): Promise<string[]> => {
      const fresh: string[] = [];
      let cursor: string | null = null;
      for (;;) {
        const page: { entries: Entry[]; nextCursor: string | null } = await list(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        const at = page.entries.findIndex((entry) => entry.id === lastSeen);
        fresh.push(...page.entries.slice(0, at === -1 ? undefined : at).map((entry) => entry.action));
        if (at !== -1 || page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      lastSeen = (await list('limit=1')).entries[0]?.id ?? lastSeen;
      return fresh;
    };
    await createEventType(t, token, { slug: 'before-late' });
    expect(await poll()).toEqual(['event_type.created']);
    const settled = (await list()).entries.map((entry) => entry.id);
    // A cursor pager starts while the late transaction runs.
    const firstPage = await list('limit=1');
    // A write that has taken its transaction id and commits late, with an older time than what the app writes meanwhile.
    const late = new pg.Client({ connectionString: t.databaseUrl });
    await late.connect();
    try {
      await late.query('BEGIN');
      await late.query(
        `INSERT INTO audit_entries (id, organization_id, occurred_at, action, actor_type, resource_type)
         VALUES ('aud_late00000000000000000000', $1, $2, 'test.late', 'system', 'test')`,
        [other.organizationId, new Date(t.clock.now().getTime() - 60_000)],
      );
      t.clock.advance(1000);
      await createEventType(t, token, { slug: 'after-late-1' });
      await createEventType(t, token, { slug: 'after-late-2' });
      // While it runs, its newer neighbours are withheld (after a short wait for it to settle), not shown past it.
      const started = performance.now();
      const during = await list();
      expect(performance.now() - started).toBeGreaterThanOrEqual(900);
      expect(during.entries.map((entry) => entry.id)).toEqual(settled);
      expect(await poll()).toEqual([]);
      await late.query('COMMIT');
    } finally {
      await late.end();
    }
    // Once it has committed, the poller finds it with its neighbours, in the order they became visible.
    expect(await poll()).toEqual(['event_type.created', 'event_type.created', 'test.late']);
    // The cursor pager started before it goes on below what it had read, and a fresh walk finds every entry once.
    const rest = await list(`limit=200&cursor=${firstPage.nextCursor}`);
    expect([firstPage.entries[0].id, ...rest.entries.map((entry) => entry.id)]).toEqual(settled);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: Entry[]; nextCursor: string | null } = await list(`limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      walked.push(...page.entries.map((entry) => entry.action));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(walked).toEqual(['event_type.created', 'event_type.created', 'test.late', 'event_type.created', 'user.registered']);
  });

  it('exports NDJSON, one entry a line, within the range', async () => {
    const res = await fetch(`${t.url}/v1/audit-log/export?to=${new Date(t.clock.now().getTime() + 1).toISOString()}`, {
      headers: { authorization: `Bearer ${owner.accessToken}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Entry);
    const page = (await t.http.get('/v1/audit-log?limit=200', auth())).body.entries as Entry[];
    expect(lines).toEqual(page);
  });

  it('is for owners and admins, and for keys with audit:read only (not in the default scopes)', async () => {
    const member = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    expect((await t.http.get('/v1/audit-log', { token: member.accessToken })).status).toBe(403);
    const admin = await addMember(t, owner.accessToken, owner.organizationId, 'admin');
    expect((await t.http.get('/v1/audit-log', { token: admin.accessToken })).status).toBe(200);
    const plain = await t.http.post('/v1/api-keys', { name: 'default' }, auth());
    expect(plain.body.key.scopes).not.toContain('audit:read');
    expect((await t.http.get('/v1/audit-log', { apiKey: plain.body.apiKey })).status).toBe(403);
    expect((await t.http.get('/v1/audit-log/export', { apiKey: plain.body.apiKey })).status).toBe(403);
    const reader = await createApiKey(t.http, owner.accessToken, { scopes: ['audit:read'] });
    const read = await t.http.get('/v1/audit-log?limit=1', { apiKey: reader.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.entries).toHaveLength(1);
    // An organization sees its own entries only.
    const stranger = await registerOwner(t.http);
    const theirs = (await t.http.get('/v1/audit-log?limit=200', { token: stranger.accessToken })).body.entries as Entry[];
    expect(theirs.map((entry) => entry.action)).toEqual(['user.registered']);
    expect((await t.http.get('/v1/audit-log')).status).toBe(401);
  });

  it('refuses a bad limit, cursor or time with 400', async () => {
    for (const query of [
      'limit=0',
      'limit=201',
      'limit=abc',
      'cursor=nope',
      'cursor=bm9wZQ',
      'from=yesterday',
      'to=2027-13-01T00:00:00Z',
      'unknown=1',
    ]) {
      const res = await t.http.get(`/v1/audit-log?${query}`, auth());
      expect([query, res.status, res.body.code]).toEqual([query, 400, 'VALIDATION_ERROR']);
    }
    expect((await t.http.get('/v1/audit-log/export?from=soon', auth())).status).toBe(400);
  });

  it('deletes entries older than AUDIT_RETENTION_DAYS', async () => {
    const now = t.clock.now();
    const old = new Date(now.getTime() - 366 * 86_400_000);
    const recent = new Date(now.getTime() - 364 * 86_400_000);
    await db.query(
      `INSERT INTO audit_entries (id, organization_id, occurred_at, action, actor_type, resource_type)
       VALUES ('aud_old000000000000000000000', $1, $2, 'x.old', 'system', 'x'), ('aud_recent0000000000000000000', $1, $3, 'x.recent', 'system', 'x')`,
      [owner.organizationId, old, recent],
    );
    const counts = await t.app.get(PeriodicJobs).runOnce();
    expect(counts['audit-retention']).toBe(1);
    const left: { id: string }[] = await db.query(`SELECT id FROM audit_entries WHERE action LIKE 'x.%'`);
    expect(left.map((row) => row.id)).toEqual(['aud_recent0000000000000000000']);
  });

  // Last: the bookings' organization moves the clock to 2027, past the other tests' tokens.
  it('an Idempotency-Key replay is marked; a refusal stored under a key leaves no entry', async () => {
    const org = await bookingOrg(t);
    const send = (key: string, requestId: string) =>
      t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-01T09:00:00Z'), {
        apiKey: org.apiKey,
        headers: { 'idempotency-key': key, 'x-request-id': requestId },
      });
    const first = await send('key-1', 'idem-1');
    expect(first.status).toBe(201);
    const replay = await send('key-1', 'idem-2');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const taken = await send('key-2', 'idem-3');
    expect(taken.status).toBe(409);
    const rows: { request_id: string; action: string; resource_id: string | null; details: unknown }[] = await db.query(
      `SELECT request_id, action, resource_id, details FROM audit_entries WHERE request_id LIKE 'idem-%' ORDER BY request_id`,
    );
    expect(rows).toEqual([
      { request_id: 'idem-1', action: 'booking.created', resource_id: first.body.booking.id, details: null },
      { request_id: 'idem-2', action: 'booking.created', resource_id: null, details: { idempotentReplay: true } },
    ]);

    // The attendee cancels with the booking's token: no principal; the token names the organization.
    const cancelled = await t.http.post(
      `/v1/bookings/${first.body.booking.id}/cancel`,
      { token: first.body.booking.confirmationToken, reason: 'Ill' },
      { headers: { 'x-request-id': 'attendee-1' } },
    );
    expect(cancelled.status).toBe(200);
    const [byAttendee] = (await t.http.get('/v1/audit-log?action=booking.cancelled', { token: org.owner.accessToken })).body
      .entries as Entry[];
    expect(byAttendee).toMatchObject({
      requestId: 'attendee-1',
      actor: { type: 'attendee', id: null, label: null },
      resource: { type: 'booking', id: first.body.booking.id },
    });
    expect(JSON.stringify(byAttendee)).not.toMatch(/attendee@example\.com|"Ann"|"Ill"/);
  });
});
