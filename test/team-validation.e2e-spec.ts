import { startTestApp, type TestApp } from './support/app.js';
import { inviteMember, registerOwner, type RegisteredOwner } from './support/factories.js';

describe('team: bad input', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let invitedId: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
    invitedId = (await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'member' })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  async function expect400(method: string, path: string, body: unknown, field: string): Promise<void> {
    const res = await t.http.request(method, path, { token: owner.accessToken, body });
    expect({ method, path, body, status: res.status, code: res.body?.code }).toEqual({
      method,
      path,
      body,
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  }

  it('malformed organization and member ids → 400 naming the parameter', async () => {
    const org = () => `/v1/organizations/${owner.organizationId}`;
    for (const bad of ['abc', 'org_short', `usr_${'a'.repeat(24)}`, `org_${'a'.repeat(65)}`, `org_${'a'.repeat(20)}%21`]) {
      await expect400('GET', `/v1/organizations/${bad}`, undefined, 'orgId');
      await expect400('GET', `/v1/organizations/${bad}/members`, undefined, 'orgId');
      await expect400('PATCH', `/v1/organizations/${bad}`, { name: 'x' }, 'orgId');
      await expect400('DELETE', `/v1/organizations/${bad}`, undefined, 'orgId');
    }
    for (const bad of ['abc', 'mem_short', `usr_${'a'.repeat(24)}`, `mem_${'a'.repeat(20)}%20`]) {
      await expect400('PATCH', `${org()}/members/${bad}`, { role: 'admin' }, 'id');
      await expect400('DELETE', `${org()}/members/${bad}`, undefined, 'id');
    }
  });

  it('organization name: required, 1..100, not blank, no other fields', async () => {
    const path = `/v1/organizations/${owner.organizationId}`;
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 42 }, { name: null }])
      await expect400('PATCH', path, body, 'name');
    await expect400('PATCH', path, { name: 'Fine', slug: 'mine' }, 'slug');
    expect((await t.http.patch(path, { name: 'x'.repeat(100) }, { token: owner.accessToken })).status).toBe(200);
  });

  it('invitation body: email, role and names are checked; unknown fields are refused', async () => {
    const path = `/v1/organizations/${owner.organizationId}/members`;
    const ok = { email: 'someone@example.com', role: 'member' };
    for (const email of ['not-an-email', '', 42, null, `${'a'.repeat(250)}@example.com`, 'a@b'])
      await expect400('POST', path, { ...ok, email }, 'email');
    await expect400('POST', path, { role: 'member' }, 'email');
    for (const role of ['superadmin', 'Owner', '', null, 1, ['admin']]) await expect400('POST', path, { ...ok, role }, 'role');
    await expect400('POST', path, { email: ok.email }, 'role');
    await expect400('POST', path, { ...ok, firstName: '' }, 'firstName');
    await expect400('POST', path, { ...ok, lastName: 'x'.repeat(101) }, 'lastName');
    await expect400('POST', path, { ...ok, status: 'active' }, 'status');
    await expect400('POST', path, { ...ok, userId: owner.userId }, 'userId');
  });

  it('role change body: a known role and nothing else', async () => {
    const path = `/v1/organizations/${owner.organizationId}/members/${invitedId}`;
    for (const role of ['root', '', null, 7]) await expect400('PATCH', path, { role }, 'role');
    await expect400('PATCH', path, {}, 'role');
    await expect400('PATCH', path, { role: 'admin', email: 'x@example.com' }, 'email');
  });

  it('list query: page ≥ 1, limit 1..100, known status and role, no other parameters', async () => {
    const path = `/v1/organizations/${owner.organizationId}/members`;
    const cases: [string, string][] = [
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['status=removed', 'status'],
      ['role=god', 'role'],
      ['sort=email', 'sort'],
    ];
    for (const [query, field] of cases) await expect400('GET', `${path}?${query}`, undefined, field);
    const fine = await t.http.get(`${path}?page=1&limit=100&status=invited&role=member`, { token: owner.accessToken });
    expect(fine.status).toBe(200);
  });
});

describe('team: OpenAPI', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('documents every team operation with its security, scope, request and responses', async () => {
    const doc = (await t.http.get('/docs-json')).body;
    const org = doc.paths['/v1/organizations/{orgId}'];
    const members = doc.paths['/v1/organizations/{orgId}/members'];
    const member = doc.paths['/v1/organizations/{orgId}/members/{id}'];
    const accept = doc.paths['/v1/invitations/accept'];
    const operations = { ...prefix('org', org), ...prefix('members', members), ...prefix('member', member) };
    expect(Object.keys(operations).sort()).toEqual([
      'member.delete',
      'member.patch',
      'members.get',
      'members.post',
      'org.delete',
      'org.get',
      'org.patch',
    ]);
    for (const [name, op] of Object.entries(operations) as [string, any][]) {
      const security = op.security.map((s: object) => Object.keys(s)[0]);
      expect({ name, bearer: security.includes('bearer') }).toEqual({ name, bearer: true });
      expect({ name, apiKey: security.includes('ApiKey') }).toEqual({ name, apiKey: name !== 'org.delete' });
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '404', '429', '500']));
    }
    expect(org.get['x-required-scope']).toBe('team:read');
    expect(members.get['x-required-scope']).toBe('team:read');
    for (const op of [org.patch, members.post, member.patch, member.delete]) expect(op['x-required-scope']).toBe('team:write');
    expect(org.delete['x-required-scope']).not.toMatch(/^team:/);
    expect(org.delete['x-jwt-roles']).toEqual(['owner']);
    expect(org.patch['x-jwt-roles']).toEqual(['owner', 'admin']);
    expect(members.post['x-jwt-roles']).toEqual(['owner', 'admin']);
    expect(members.get['x-jwt-roles']).toEqual(['owner', 'admin', 'member']);
    expect(members.post.responses['201'].content['application/json'].schema.$ref).toMatch(/InvitedMemberResponse$/);
    expect(members.post.requestBody.content['application/json'].schema.$ref).toMatch(/InviteMemberDto$/);
    expect(members.get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['orgId', 'page', 'limit', 'status', 'role']),
    );
    expect(Object.keys(member.patch.responses)).toContain('409');
    expect(accept.post.security ?? []).toEqual([]);
    expect(Object.keys(accept.post.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409', '410']));
    expect(Object.keys(doc.components.schemas.MemberView.properties).sort()).toEqual(
      ['bookingLimits', 'email', 'firstName', 'id', 'invitedAt', 'joinedAt', 'lastName', 'role', 'status', 'updatedAt', 'userId'].sort(),
    );
  });
});

function prefix(name: string, item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).map(([method, op]) => [`${name}.${method}`, op]));
}
