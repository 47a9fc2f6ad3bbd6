import { startTestApp, type TestApp } from './support/app.js';
import { addMember, createApiKey, inviteMember, registerOwner, uniqueEmail, type RegisteredOwner } from './support/factories.js';

type Actor = 'owner' | 'admin' | 'member';
type TargetRole = 'owner' | 'admin' | 'member';

interface Org {
  id: string;
  owner: RegisteredOwner;
  tokens: Record<Actor, string>;
}

/** One action against a fresh target where it changes something, so cells do not depend on each other. */
interface Action {
  name: string;
  target?: { role: TargetRole; status: 'active' | 'invited' };
  run(t: TestApp, org: Org, token: string, targetId: string): Promise<{ status: number; body: any }>;
}

const actions: Record<string, Action> = {
  'read organization': { name: 'read organization', run: (t, org, token) => t.http.get(`/v1/organizations/${org.id}`, { token }) },
  'list members': { name: 'list members', run: (t, org, token) => t.http.get(`/v1/organizations/${org.id}/members`, { token }) },
  'patch organization': {
    name: 'patch organization',
    run: (t, org, token) => t.http.patch(`/v1/organizations/${org.id}`, { name: 'Renamed' }, { token }),
  },
  'invite member': {
    name: 'invite member',
    run: (t, org, token) => t.http.post(`/v1/organizations/${org.id}/members`, { email: uniqueEmail(), role: 'member' }, { token }),
  },
  'invite admin': {
    name: 'invite admin',
    run: (t, org, token) => t.http.post(`/v1/organizations/${org.id}/members`, { email: uniqueEmail(), role: 'admin' }, { token }),
  },
  'invite owner': {
    name: 'invite owner',
    run: (t, org, token) => t.http.post(`/v1/organizations/${org.id}/members`, { email: uniqueEmail(), role: 'owner' }, { token }),
  },
  're-role member to admin': {
    name: 're-role member to admin',
    target: { role: 'member', status: 'active' },
    run: (t, org, token, id) => t.http.patch(`/v1/organizations/${org.id}/members/${id}`, { role: 'admin' }, { token }),
  },
  're-role admin to member': {
    name: 're-role admin to member',
    target: { role: 'admin', status: 'active' },
    run: (t, org, token, id) => t.http.patch(`/v1/organizations/${org.id}/members/${id}`, { role: 'member' }, { token }),
  },
  'grant owner to a member': {
    name: 'grant owner to a member',
    target: { role: 'member', status: 'active' },
    run: (t, org, token, id) => t.http.patch(`/v1/organizations/${org.id}/members/${id}`, { role: 'owner' }, { token }),
  },
  'demote an owner': {
    name: 'demote an owner',
    target: { role: 'owner', status: 'active' },
    run: (t, org, token, id) => t.http.patch(`/v1/organizations/${org.id}/members/${id}`, { role: 'admin' }, { token }),
  },
  'demote an invited owner': {
    name: 'demote an invited owner',
    target: { role: 'owner', status: 'invited' },
    run: (t, org, token, id) => t.http.patch(`/v1/organizations/${org.id}/members/${id}`, { role: 'member' }, { token }),
  },
  'remove a member': {
    name: 'remove a member',
    target: { role: 'member', status: 'active' },
    run: (t, org, token, id) => t.http.delete(`/v1/organizations/${org.id}/members/${id}`, { token }),
  },
  'remove an admin': {
    name: 'remove an admin',
    target: { role: 'admin', status: 'active' },
    run: (t, org, token, id) => t.http.delete(`/v1/organizations/${org.id}/members/${id}`, { token }),
  },
  'remove an owner': {
    name: 'remove an owner',
    target: { role: 'owner', status: 'active' },
    run: (t, org, token, id) => t.http.delete(`/v1/organizations/${org.id}/members/${id}`, { token }),
  },
  'cancel an invitation': {
    name: 'cancel an invitation',
    target: { role: 'member', status: 'invited' },
    run: (t, org, token, id) => t.http.delete(`/v1/organizations/${org.id}/members/${id}`, { token }),
  },
};

// api-rules.md § Keys: owner everything; admin all but granting or touching `owner`; member reads only.
const MATRIX: [string, number, number, number][] = [
  ['read organization', 200, 200, 200],
  ['list members', 200, 200, 200],
  ['patch organization', 200, 200, 403],
  ['invite member', 201, 201, 403],
  ['invite admin', 201, 201, 403],
  ['invite owner', 201, 403, 403],
  ['re-role member to admin', 200, 200, 403],
  ['re-role admin to member', 200, 200, 403],
  ['grant owner to a member', 200, 403, 403],
  ['demote an owner', 200, 403, 403],
  ['demote an invited owner', 200, 403, 403],
  ['remove a member', 204, 204, 403],
  ['remove an admin', 204, 204, 403],
  ['remove an owner', 204, 403, 403],
  ['cancel an invitation', 204, 204, 403],
];
const ACTORS: Actor[] = ['owner', 'admin', 'member'];
const CELLS = MATRIX.flatMap(([action, ...expected]) => ACTORS.map((actor, i) => ({ action, actor, expected: expected[i] })));

describe('team: role × action matrix (JWT)', () => {
  let t: TestApp;
  let org: Org;

  async function target(spec: NonNullable<Action['target']>): Promise<string> {
    if (spec.status === 'invited') return (await inviteMember(t.http, org.owner.accessToken, org.id, { role: spec.role })).id;
    return (await addMember(t, org.owner.accessToken, org.id, spec.role)).memberId;
  }

  beforeAll(async () => {
    t = await startTestApp();
    const owner = await registerOwner(t.http);
    const [admin, member] = await Promise.all([
      addMember(t, owner.accessToken, owner.organizationId, 'admin'),
      addMember(t, owner.accessToken, owner.organizationId, 'member'),
    ]);
    org = { id: owner.organizationId, owner, tokens: { owner: owner.accessToken, admin: admin.accessToken, member: member.accessToken } };
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(CELLS)('$actor: $action → $expected', async ({ action, actor, expected }) => {
    const spec = actions[action];
    const targetId = spec.target ? await target(spec.target) : '';
    const res = await spec.run(t, org, org.tokens[actor], targetId);
    expect(res.status).toBe(expected);
    if (expected === 403) expect(res.body.code).toBe('FORBIDDEN');
    if (spec.target && expected === 403) {
      // A refused change changed nothing.
      const list = await t.http.get(`/v1/organizations/${org.id}/members?limit=100`, { token: org.tokens.owner });
      expect(list.body.members.find((m: { id: string }) => m.id === targetId)).toMatchObject({
        role: spec.target.role,
        status: spec.target.status,
      });
    }
  });

  it.each([
    ['member', 403],
    ['admin', 403],
    ['owner', 204],
  ] as const)('%s: delete organization → %i', async (actor, expected) => {
    const owner = await registerOwner(t.http);
    const token = actor === 'owner' ? owner.accessToken : (await addMember(t, owner.accessToken, owner.organizationId, actor)).accessToken;
    const res = await t.http.delete(`/v1/organizations/${owner.organizationId}`, { token });
    expect(res.status).toBe(expected);
    const after = await t.http.get(`/v1/organizations/${owner.organizationId}`, { token: owner.accessToken });
    expect(after.status).toBe(expected === 204 ? 401 : 200);
  });
});

describe('team: API keys', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let readKey: string;
  let writeKey: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
    [readKey, writeKey, otherKey] = (
      await Promise.all([
        createApiKey(t.http, owner.accessToken, { scopes: ['team:read'] }),
        createApiKey(t.http, owner.accessToken, { scopes: ['team:read', 'team:write'] }),
        createApiKey(t.http, owner.accessToken, { scopes: ['bookings:read'] }),
      ])
    ).map((k) => k.apiKey);
  });
  afterAll(async () => {
    await t.close();
  });

  const path = (suffix = '') => `/v1/organizations/${owner.organizationId}${suffix}`;

  it('team:read reads; every write gets 403 INSUFFICIENT_SCOPE naming team:write', async () => {
    expect((await t.http.get(path(), { apiKey: readKey })).status).toBe(200);
    expect((await t.http.get(path('/members'), { apiKey: readKey })).status).toBe(200);
    const invited = await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'member' });
    const writes = [
      t.http.patch(path(), { name: 'x' }, { apiKey: readKey }),
      t.http.post(path('/members'), { email: uniqueEmail(), role: 'member' }, { apiKey: readKey }),
      t.http.patch(path(`/members/${invited.id}`), { role: 'admin' }, { apiKey: readKey }),
      t.http.delete(path(`/members/${invited.id}`), { apiKey: readKey }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('INSUFFICIENT_SCOPE');
      expect(res.body.message).toContain('team:write');
    }
  });

  it('a key without team:read cannot read the team', async () => {
    for (const res of await Promise.all([t.http.get(path(), { apiKey: otherKey }), t.http.get(path('/members'), { apiKey: otherKey })])) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('INSUFFICIENT_SCOPE');
    }
  });

  it('team:write invites, re-roles and removes like an admin: never grants or touches an owner', async () => {
    const invite = await t.http.post(path('/members'), { email: uniqueEmail(), role: 'admin' }, { apiKey: writeKey });
    expect(invite.status).toBe(201);
    expect((await t.http.patch(path(), { name: 'Renamed by key' }, { apiKey: writeKey })).status).toBe(200);

    const member = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    expect((await t.http.patch(path(`/members/${member.memberId}`), { role: 'admin' }, { apiKey: writeKey })).status).toBe(200);
    const secondOwner = await addMember(t, owner.accessToken, owner.organizationId, 'owner');
    const refusals = await Promise.all([
      t.http.post(path('/members'), { email: uniqueEmail(), role: 'owner' }, { apiKey: writeKey }),
      t.http.patch(path(`/members/${member.memberId}`), { role: 'owner' }, { apiKey: writeKey }),
      t.http.patch(path(`/members/${secondOwner.memberId}`), { role: 'member' }, { apiKey: writeKey }),
      t.http.delete(path(`/members/${secondOwner.memberId}`), { apiKey: writeKey }),
    ]);
    expect(refusals.map((r) => [r.status, r.body.code])).toEqual(Array(4).fill([403, 'FORBIDDEN']));
    expect((await t.http.delete(path(`/members/${member.memberId}`), { apiKey: writeKey })).status).toBe(204);
    expect((await t.http.delete(path(`/members/${invite.body.member.id}`), { apiKey: writeKey })).status).toBe(204);
  });

  it('DELETE of the organization is JWT-only: any key gets 403 FORBIDDEN', async () => {
    const allScopes = await createApiKey(t.http, owner.accessToken);
    for (const apiKey of [allScopes.apiKey, writeKey, readKey]) {
      const res = await t.http.delete(path(), { apiKey });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    expect((await t.http.get(path(), { token: owner.accessToken })).status).toBe(200);
  });

  it('without credentials every team route answers 401', async () => {
    for (const res of await Promise.all([t.http.get(path()), t.http.get(path('/members')), t.http.delete(path())])) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });
});
