import { startTestApp, type TestApp } from './support/app.js';
import { createApiKey, registerOwner } from './support/factories.js';

describe('Audit log', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('records a registration, a key and a failed sign-in', async () => {
    const owner = await registerOwner(t.http);
    const key = await createApiKey(t.http, owner.accessToken, { name: 'backend' });
    const failed = await t.http.post('/v1/auth/login', { email: owner.email, password: 'wrong password!!' });
    expect(failed.status).toBe(401);
    const res = await t.http.get('/v1/audit-log', { token: owner.accessToken });
    console.log(JSON.stringify(res.body, null, 1));
    expect(res.status).toBe(200);
    expect(key.id).toBeDefined();
  });
});
