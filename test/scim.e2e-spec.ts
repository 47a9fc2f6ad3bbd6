import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, NOW } from './support/bookings.js';
import { addMember, createApiKey, registerOwner, type RegisteredOwner } from './support/factories.js';
import { createEventType, putSchedule } from './support/scheduling.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const DAY = '2027-03-02';

interface ScimAnswer {
  status: number;
  contentType: string | null;
  body: any;
}

describe('SCIM 2.0 provisioning (contract § 21)', () => {
  let a: TestApp;
  let b: TestApp;
  let owner: RegisteredOwner;
  let token: string;
  let db: DataSource;

  const scim = async (method: string, path: string, body?: unknown, bearer = token, app: TestApp = a): Promise<ScimAnswer> => {
    const response = await fetch(`${app.url}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, contentType: response.headers.get('content-type'), body: text ? JSON.parse(text) : undefined };
  };
  const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
    schemas: [USER],
    userName,
    name: { givenName: 'Grace', familyName: 'Hopper' },
    active: true,
    externalId: `ext-${userName}`,
    ...extra,
  });
  const memberRow = async (userId: string): Promise<{ role: string; status: string } | undefined> =>
    (await db.query(`SELECT role, status FROM members WHERE user_id = $1 AND organization_id = $2`, [userId, owner.organizationId]))[0];

  beforeAll(async () => {
    a = await startTestApp({ env: { PUBLIC_URL: 'https://book.example.test' } });
    a.clock.set(NOW);
    db = a.app.get(DataSource);
    owner = await registerOwner(a.http);
    const created = await a.http.post(`/v1/organizations/${owner.organizationId}/scim-token`, undefined, { token: owner.accessToken });
    expect(created.status).toBe(201);
    token = created.body.token;
  });

  afterAll(async () => {
    await b?.close();
    await a.close();
  });

  it('makes a token shown once, stored hashed; a new one revokes the previous; DELETE revokes it', async () => {
    expect(token).toMatch(/^scim_[0-9A-Za-z]{40}$/);
    const [row] = await db.query(`SELECT token_hash FROM scim_tokens WHERE organization_id = $1`, [owner.organizationId]);
    expect(row.token_hash).not.toContain(token.slice(5));
    const second = (await a.http.post(`/v1/organizations/${owner.organizationId}/scim-token`, undefined, { token: owner.accessToken })).body
      .token;
    const refused = await scim('GET', '/Users', undefined, token);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ schemas: [ERROR], status: '401' });
    expect((await scim('GET', '/Users', undefined, second)).status).toBe(200);
    expect((await a.http.delete(`/v1/organizations/${owner.organizationId}/scim-token`, { token: owner.accessToken })).status).toBe(204);
    expect((await scim('GET', '/Users', undefined, second)).status).toBe(401);
    token = (await a.http.post(`/v1/organizations/${owner.organizationId}/scim-token`, undefined, { token: owner.accessToken })).body.token;
    const entries = await db.query(`SELECT action FROM audit_entries WHERE organization_id = $1 AND action LIKE 'scim_token.%'`, [
      owner.organizationId,
    ]);
    expect(entries.map((e: { action: string }) => e.action).sort()).toEqual([
      'scim_token.created',
      'scim_token.created',
      'scim_token.created',
      'scim_token.revoked',
    ]);
  });

  it('describes itself: ServiceProviderConfig, ResourceTypes, Schemas, in application/scim+json', async () => {
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.contentType).toMatch(/^application\/scim\+json/);
    expect(config.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      bulk: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      changePassword: { supported: false },
    });
    expect((await scim('GET', '/ResourceTypes')).body.Resources[0]).toMatchObject({ id: 'User', endpoint: '/Users', schema: USER });
    const schemas = await scim('GET', '/Schemas');
    expect(schemas.body.Resources[0].id).toBe(USER);
    expect(schemas.body.Resources[0].attributes.map((attribute: { name: string }) => attribute.name)).toContain('userName');
  });

  it('creates an active member with the default role; a replay of the same POST is 409 uniqueness, not a second member', async () => {
    const created = await scim('POST', '/Users', newUser('Grace@Example.com'));
    expect(created.status).toBe(201);
    expect(created.contentType).toMatch(/^application\/scim\+json/);
    expect(created.body).toMatchObject({
      schemas: [USER],
      id: expect.stringMatching(/^usr_/),
      userName: 'grace@example.com',
      name: { givenName: 'Grace', familyName: 'Hopper' },
      externalId: 'ext-Grace@Example.com',
      active: true,
      meta: { resourceType: 'User', location: `https://book.example.test/scim/v2/Users/${created.body.id}` },
    });
    expect(await memberRow(created.body.id)).toEqual({ role: 'member', status: 'active' });
    const replay = await scim('POST', '/Users', newUser('Grace@Example.com'));
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual({ schemas: [ERROR], status: '409', scimType: 'uniqueness', detail: expect.any(String) });
    expect(Number((await db.query(`SELECT count(*) AS n FROM users WHERE email = 'grace@example.com'`))[0].n)).toBe(1);
    const [entry] = await db.query(
      `SELECT actor_type, actor_id, actor_label, resource_id FROM audit_entries WHERE organization_id = $1 AND action = 'member.provisioned'`,
      [owner.organizationId],
    );
    expect(entry).toEqual({ actor_type: 'scim', actor_id: null, actor_label: 'SCIM', resource_id: created.body.id });
    // Two POSTs of one new person at once: one is created, the other is 409.
    const both = await Promise.all([
      scim('POST', '/Users', newUser('twice@example.com')),
      scim('POST', '/Users', newUser('twice@example.com')),
    ]);
    expect(both.map((answer) => answer.status).sort()).toEqual([201, 409]);
  });

  it('a userName of another organization’s member is 409 uniqueness', async () => {
    const other = await registerOwner(a.http);
    const res = await scim('POST', '/Users', newUser(other.email));
    expect(res.status).toBe(409);
    expect(res.body.scimType).toBe('uniqueness');
  });

  it('lists with filter userName eq (case-insensitive) and pages with startIndex and count; other filters are 400 invalidFilter', async () => {
    for (const name of ['page-1', 'page-2', 'page-3'])
      expect((await scim('POST', '/Users', newUser(`${name}@example.com`))).status).toBe(201);
    const found = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "PAGE-2@example.com"')}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 1, startIndex: 1 });
    expect(found.body.Resources[0].userName).toBe('page-2@example.com');
    const none = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    const all = await scim('GET', '/Users');
    const total = all.body.totalResults as number;
    expect(total).toBeGreaterThanOrEqual(5);
    const page = await scim('GET', '/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: total, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((r: { id: string }) => r.id)).toEqual(all.body.Resources.slice(1, 3).map((r: { id: string }) => r.id));
    for (const filter of ['emails eq "x@example.com"', 'userName co "page"', 'userName eq "a" or userName eq "b"']) {
      const refused = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidFilter' });
    }
  });

  it('GET, PUT and PATCH (with and without path) change names and externalId', async () => {
    const id = (await scim('POST', '/Users', newUser('ada@example.com'))).body.id as string;
    expect((await scim('GET', `/Users/${id}`)).body.userName).toBe('ada@example.com');
    const put = await scim('PUT', `/Users/${id}`, newUser('ada@example.com', { name: { givenName: 'Ada', familyName: 'Lovelace' } }));
    expect(put.status).toBe(200);
    expect(put.body.name).toEqual({ givenName: 'Ada', familyName: 'Lovelace' });
    const withPath = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'name.givenName', value: 'Augusta' }],
    });
    expect(withPath.body.name).toEqual({ givenName: 'Augusta', familyName: 'Lovelace' });
    const withoutPath = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', value: { externalId: 'okta-42', 'name.familyName': 'King' } }],
    });
    expect(withoutPath.body).toMatchObject({ externalId: 'okta-42', name: { givenName: 'Augusta', familyName: 'King' } });
    const [member] = await db.query(`SELECT first_name, last_name FROM members WHERE user_id = $1`, [id]);
    expect(member).toEqual({ first_name: 'Augusta', last_name: 'King' });
    const userName = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'userName', value: 'x@example.com' }],
    });
    expect(userName.status).toBe(400);
    const missing = await scim('GET', '/Users/usr_doesnotexist000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ schemas: [ERROR], status: '404' });
  });

  it('active false removes the membership at once (sessions end), active true restores it with its previous role; DELETE removes it', async () => {
    const alice = await addMember(a, owner.accessToken, owner.organizationId, 'member');
    expect(
      (
        await a.http.patch(
          `/v1/organizations/${owner.organizationId}/members/${alice.memberId}`,
          { role: 'admin' },
          { token: owner.accessToken },
        )
      ).status,
    ).toBe(200);
    expect((await a.http.get('/v1/users/me', { token: alice.accessToken })).status).toBe(200);
    const off = await scim('PATCH', `/Users/${alice.userId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect(await memberRow(alice.userId)).toBeUndefined();
    expect((await a.http.get('/v1/users/me', { token: alice.accessToken })).status).toBe(401);
    expect((await scim('GET', `/Users/${alice.userId}`)).body.active).toBe(false);
    const [entry] = await db.query(
      `SELECT action, actor_type FROM audit_entries WHERE organization_id = $1 AND resource_id = $2 ORDER BY tx_id DESC LIMIT 1`,
      [owner.organizationId, alice.userId],
    );
    expect(entry).toEqual({ action: 'member.deprovisioned', actor_type: 'scim' });
    // Entra ID sends the boolean as a string, without a path.
    const on = await scim('PATCH', `/Users/${alice.userId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: 'True' } }],
    });
    expect(on.body.active).toBe(true);
    expect(await memberRow(alice.userId)).toEqual({ role: 'admin', status: 'active' });
    const actions = await db.query(`SELECT action FROM audit_entries WHERE organization_id = $1 AND resource_id = $2 ORDER BY tx_id`, [
      owner.organizationId,
      alice.userId,
    ]);
    expect(actions.map((row: { action: string }) => row.action)).toEqual(['member.deprovisioned', 'member.provisioned']);
    expect((await scim('DELETE', `/Users/${alice.userId}`)).status).toBe(204);
    expect(await memberRow(alice.userId)).toBeUndefined();
    expect((await scim('GET', `/Users/${alice.userId}`)).status).toBe(404);
  });

  it('another organization’s token does not reach these users', async () => {
    const other = await registerOwner(a.http);
    const otherToken = (await a.http.post(`/v1/organizations/${other.organizationId}/scim-token`, undefined, { token: other.accessToken }))
      .body.token as string;
    const id = (await scim('POST', '/Users', newUser('mine@example.com'))).body.id as string;
    expect((await scim('GET', `/Users/${id}`, undefined, otherToken)).status).toBe(404);
    expect(
      (await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] }, otherToken))
        .status,
    ).toBe(404);
    expect((await scim('DELETE', `/Users/${id}`, undefined, otherToken)).status).toBe(404);
    const filtered = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "mine@example.com"')}`, undefined, otherToken);
    expect(filtered.body.totalResults).toBe(0);
    expect(await memberRow(id)).toEqual({ role: 'member', status: 'active' });
  });

  it('over the per-address limit: 429 in SCIM’s shape with Retry-After, which directories honour', async () => {
    const limited = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { RATE_LIMIT_PUBLIC_PER_MINUTE: '3' } });
    try {
      const answers: ScimAnswer[] = [];
      const headers: (string | null)[] = [];
      for (let i = 0; i < 4; i++) {
        const response = await fetch(`${limited.url}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } });
        headers.push(response.headers.get('retry-after'));
        answers.push({ status: response.status, contentType: response.headers.get('content-type'), body: await response.json() });
      }
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
      expect(answers[3].body).toMatchObject({ schemas: [ERROR], status: '429' });
      expect(answers[3].contentType).toMatch(/^application\/scim\+json/);
      expect(Number(headers[3])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('a deactivated host is never offered by the availability answers that follow, on another instance either', async () => {
    const key = await createApiKey(a.http, owner.accessToken, { rateLimitPerMinute: 10000 });
    const hosts: string[] = [];
    for (let i = 0; i < 4; i++) {
      const host = await addMember(a, owner.accessToken, owner.organizationId, 'member');
      // Each host has hours of its own, so that every host is the one offered for some slots.
      const hours = [1, 2, 3, 4, 5].map((dayOfWeek) => ({
        dayOfWeek,
        slots: [{ startTime: `${String(9 + 2 * i).padStart(2, '0')}:00`, endTime: `${String(11 + 2 * i).padStart(2, '0')}:00` }],
      }));
      await putSchedule(a, key, 'UTC', hours, host.userId);
      hosts.push(host.userId);
    }
    // A second instance on the same database; after the invitations, whose mails its workers would otherwise send.
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock });
    const eventTypeId = await createEventType(a, key, { durationMinutes: 30, schedulingType: 'round_robin', hostUserIds: hosts });
    const booked = await a.http.post('/v1/bookings', bookingBody(eventTypeId, `${DAY}T09:00:00Z`), key);
    expect(booked.status).toBe(201);
    const bookingHost = booked.body.booking.hostUserId as string;
    const offered = async (app: TestApp): Promise<Set<string>> => {
      const res = await app.http.get(`/v1/availability?eventTypeId=${eventTypeId}&start=${DAY}&end=${DAY}`, key);
      expect(res.status).toBe(200);
      return new Set((res.body.slots as { hostUserId: string }[]).map((slot) => slot.hostUserId));
    };
    expect(await offered(b)).toEqual(new Set(hosts));
    for (const host of hosts.slice(0, 3)) {
      // Readers on both instances keep asking while the directory deactivates the host.
      let reading = true;
      const readers = [a, b].map(async (app) => {
        while (reading) await offered(app);
      });
      const off = await scim('PATCH', `/Users/${host}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      });
      expect(off.status).toBe(200);
      for (const app of [b, a, b]) expect((await offered(app)).has(host)).toBe(false);
      reading = false;
      await Promise.all(readers);
    }
    // The last host is still offered; the bookings of those that left stay as they were.
    expect(await offered(b)).toEqual(new Set([hosts[3]]));
    const booking = await a.http.get(`/v1/bookings/${booked.body.booking.id}`, key);
    expect(booking.body.booking).toMatchObject({ status: 'confirmed', hostUserId: bookingHost });
  });
});
