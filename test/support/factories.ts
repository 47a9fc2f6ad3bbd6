import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { tenantScope, type TenantScope } from '@app/common';
import type { TestApp } from './app.js';
import type { HttpClient } from './http.js';

export interface RegisteredOwner {
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  userId: string;
  organizationId: string;
  memberId: string;
}

export function uniqueEmail(label = 'user'): string {
  return `${label}-${randomBytes(5).toString('hex')}@example.com`;
}

/** Registers a new organization and returns its owner's credentials. */
export async function registerOwner(http: HttpClient, overrides: Record<string, unknown> = {}): Promise<RegisteredOwner> {
  const body = {
    email: uniqueEmail('owner'),
    password: 'correct horse battery',
    organizationName: 'Acme Scheduling',
    firstName: 'Ada',
    lastName: 'Owner',
    ...overrides,
  };
  const res = await http.post('/v1/auth/register', body);
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return {
    email: String(body.email).toLowerCase(),
    password: String(body.password),
    accessToken: res.body.accessToken,
    refreshToken: res.body.refreshToken,
    userId: res.body.user.id,
    organizationId: res.body.organization.id,
    memberId: res.body.member.id,
  };
}

export async function createApiKey(
  http: HttpClient,
  token: string,
  body: Record<string, unknown> = {},
): Promise<{ apiKey: string; id: string }> {
  const res = await http.post('/v1/api-keys', { name: 'test key', ...body }, { token });
  if (res.status !== 201) throw new Error(`api key failed: ${res.status} ${res.text}`);
  return { apiKey: res.body.apiKey, id: res.body.key.id };
}

export interface InvitedMember {
  id: string;
  email: string;
  role: string;
  status: string;
  invitedAt: string;
}

/** Invites `email` (default: a fresh one) into `orgId`; throws unless the API answers 201. */
export async function inviteMember(
  http: HttpClient,
  ownerToken: string,
  orgId: string,
  options: { email?: string; role: string; firstName?: string; lastName?: string },
): Promise<InvitedMember> {
  const body = {
    email: options.email ?? uniqueEmail(options.role),
    role: options.role,
    firstName: options.firstName,
    lastName: options.lastName,
  };
  const res = await http.post(`/v1/organizations/${orgId}/members`, body, { token: ownerToken });
  if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${res.text}`);
  return res.body.member;
}

const INVITATION_LINK = /\/invitations\/accept\?token=([0-9A-Za-z]+)/;
const parsedMail = new Map<string, Promise<{ to: string; text: string; mtimeMs: number }>>();

async function readMailFile(path: string): Promise<{ to: string; text: string; mtimeMs: number }> {
  const [raw, info] = await Promise.all([readFile(path), stat(path)]);
  const mail = await simpleParser(raw);
  const to = Array.isArray(mail.to) ? mail.to.map((a) => a.text).join(', ') : (mail.to?.text ?? '');
  return { to: to.toLowerCase(), text: mail.text ?? '', mtimeMs: info.mtimeMs };
}

/**
 * The invitation tokens mailed to `email`, oldest first, read from the `.eml` files the app writes
 * without SMTP_URL. Waits until at least `count` have arrived: the mail worker writes after commit.
 */
export async function invitationTokens(t: TestApp, email: string, count = 1, timeoutMs = 5000): Promise<string[]> {
  const dir = join(t.config.dataDir, 'mail');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const files = existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.eml')) : [];
    const mails = await Promise.all(
      files.map((f) => {
        const path = join(dir, f);
        let mail = parsedMail.get(path);
        if (!mail) parsedMail.set(path, (mail = readMailFile(path)));
        return mail;
      }),
    );
    const tokens = mails
      .filter((m) => m.to.includes(email.toLowerCase()) && INVITATION_LINK.test(m.text))
      .sort((a, b) => a.mtimeMs - b.mtimeMs)
      .map((m) => INVITATION_LINK.exec(m.text)![1]);
    if (tokens.length >= count) return tokens;
    if (Date.now() > deadline) throw new Error(`No invitation mail for ${email} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The newest invitation token mailed to `email`. */
export async function invitationToken(t: TestApp, email: string, count = 1): Promise<string> {
  const tokens = await invitationTokens(t, email, count);
  return tokens[tokens.length - 1];
}

export interface AddedMember {
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  userId: string;
  memberId: string;
}

/** A member who has accepted their invitation, with a session. Needs an app without SMTP_URL (mail goes to files). */
export async function addMember(t: TestApp, ownerToken: string, orgId: string, role: string): Promise<AddedMember> {
  const invited = await inviteMember(t.http, ownerToken, orgId, { role });
  const token = await invitationToken(t, invited.email);
  const password = 'member password 1';
  const res = await t.http.post('/v1/invitations/accept', { token, password });
  if (res.status !== 200) throw new Error(`accept failed: ${res.status} ${res.text}`);
  return {
    email: invited.email,
    password,
    accessToken: res.body.accessToken,
    refreshToken: res.body.refreshToken,
    userId: res.body.member.userId,
    memberId: res.body.member.id,
  };
}

/** A tenant scope for code that tests call directly (the app makes them from its callers' principals). */
export function scopeOf(organizationId: string, livemode = true): TenantScope {
  return tenantScope({ type: 'api_key', organizationId, userId: '', memberId: null, role: null, livemode });
}
