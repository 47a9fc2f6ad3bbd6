import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner, uniqueEmail, type RegisteredOwner } from './support/factories.js';
import { waitFor } from './support/process.js';
import { SmtpTestServer, type ReceivedMail } from './support/smtp.js';

const APP_URL = 'https://app.example.test';
const ACCEPT_LINK = /https:\/\/app\.example\.test\/invitations\/accept\?token=([0-9A-Za-z]+)/;

function tokenOf(mail: ReceivedMail): string {
  const match = ACCEPT_LINK.exec(mail.parsed.text ?? '');
  if (!match) throw new Error(`no accept link in: ${mail.parsed.text}`);
  return match[1];
}

const sentTo = (email: string) => (mail: ReceivedMail) => mail.envelope.to.includes(email);

describe('team: invitation mail over SMTP', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;
  let owner: RegisteredOwner;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    t = await startTestApp({
      env: { SMTP_URL: smtp.url, APP_URL, MAIL_RETRY_SCHEDULE: '1,1,1', MAIL_FROM: 'Scheduling <team@sched.test>' },
    });
    owner = await registerOwner(t.http, { organizationName: 'Smith & <Sons>' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('mails the invitation with the accept link; the token from the mail signs the new member in, and login works', async () => {
    const email = uniqueEmail('newcomer');
    const res = await t.http.post(
      `/v1/organizations/${owner.organizationId}/members`,
      { email, role: 'member', firstName: 'Linus' },
      { token: owner.accessToken },
    );
    expect(res.status).toBe(201);

    const mail = await smtp.waitForMail(sentTo(email));
    expect(mail.envelope.to).toEqual([email]);
    expect(mail.parsed.subject).toBe("You're invited to join Smith & <Sons>");
    const token = tokenOf(mail);
    expect(token).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(mail.parsed.text).toContain('Smith & <Sons>');
    expect(mail.parsed.html).toContain(`<a href="${APP_URL}/invitations/accept?token=${token}">`);
    expect(mail.parsed.html).toContain('Smith &amp; &lt;Sons&gt;');

    const accepted = await t.http.post('/v1/invitations/accept', { token, password: 'my own password' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.member).toMatchObject({ id: res.body.member.id, email, role: 'member', status: 'active' });

    const login = await t.http.post('/v1/auth/login', { email, password: 'my own password' });
    expect(login.status).toBe(200);
    const me = await t.http.get('/v1/users/me', { token: login.body.accessToken });
    expect(me.body).toMatchObject({
      user: { email, firstName: 'Linus' },
      organization: { id: owner.organizationId },
      member: { role: 'member' },
    });
  });

  it('answers 201 while SMTP is down and the invitation arrives once it is back', async () => {
    await smtp.stop();
    const email = uniqueEmail('patient');
    const started = Date.now();
    const res = await t.http.post(
      `/v1/organizations/${owner.organizationId}/members`,
      { email, role: 'admin' },
      { token: owner.accessToken },
    );
    expect(res.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(1000);

    // A delivery attempt failed while the server was away.
    await waitFor(
      async () => {
        const rows: { attempts: number; last_error: string | null }[] = await t.app
          .get(DataSource)
          .query(`SELECT attempts, last_error FROM mail_outbox WHERE $1 = ANY(recipients)`, [email]);
        return rows[0]?.last_error ? rows[0] : undefined;
      },
      5000,
      'a failed attempt',
    );
    expect(smtp.messages.filter(sentTo(email))).toHaveLength(0);

    await smtp.restart();
    const mail = await smtp.waitForMail(sentTo(email), 5000);
    const accepted = await t.http.post('/v1/invitations/accept', { token: tokenOf(mail), password: 'long enough' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.member.role).toBe('admin');
    expect(smtp.messages.filter(sentTo(email))).toHaveLength(1);
  });

  it('sends nothing for a refused invitation', async () => {
    const email = uniqueEmail('dup');
    expect(
      (await t.http.post(`/v1/organizations/${owner.organizationId}/members`, { email, role: 'member' }, { token: owner.accessToken }))
        .status,
    ).toBe(201);
    const dup = await t.http.post(
      `/v1/organizations/${owner.organizationId}/members`,
      { email, role: 'admin' },
      { token: owner.accessToken },
    );
    expect(dup.status).toBe(409);
    await smtp.waitForMail(sentTo(email));
    // A marker sent afterwards arrives after anything the refused request could have queued.
    const marker = uniqueEmail('marker');
    await t.http.post(`/v1/organizations/${owner.organizationId}/members`, { email: marker, role: 'member' }, { token: owner.accessToken });
    await smtp.waitForMail(sentTo(marker));
    expect(smtp.messages.filter(sentTo(email))).toHaveLength(1);
  });
});
