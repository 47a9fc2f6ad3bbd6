import { randomBytes } from 'node:crypto';
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

export async function createApiKey(http: HttpClient, token: string, body: Record<string, unknown> = {}): Promise<{ apiKey: string; id: string }> {
  const res = await http.post('/v1/api-keys', { name: 'test key', ...body }, { token });
  if (res.status !== 201) throw new Error(`api key failed: ${res.status} ${res.text}`);
  return { apiKey: res.body.apiKey, id: res.body.key.id };
}
