import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { AppError, createValidationPipe, isDocumentedNullable } from '@app/common';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { addMember, type AddedMember } from './support/factories.js';
import type { HttpResponse } from './support/http.js';
import { putSchedule } from './support/scheduling.js';

interface Entry {
  action: string;
  actor: { id: string | null };
  changes?: Record<string, { from: unknown; to: unknown }>;
  details?: Record<string, unknown>;
}

function details(res: HttpResponse): [string, string][] {
  return (res.body?.details ?? []).map((detail: { field: string; message: string }) => [detail.field, detail.message]);
}

describe('hardening: what the fuzzer and the reviews found (issue 48)', () => {
  let t: TestApp;
  let org: BookingOrg;
  let admin: AddedMember;
  let member: AddedMember;
  const owner = (): { token: string } => ({ token: org.owner.accessToken });
  const entries = async (action: string): Promise<Entry[]> =>
    (await t.http.get(`/v1/audit-log?action=${action}`, owner())).body.entries as Entry[];

  beforeAll(async () => {
    t = await startTestApp();
    org = await bookingOrg(t);
    admin = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'admin');
    member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
  });
  afterAll(async () => {
    await t.close();
  });

  describe('null where the contract has no null is a 400 naming the field', () => {
    it('POST /bookings/:id/reassign with hostUserId or fromHostUserId null, before any booking is read', async () => {
      for (const field of ['hostUserId', 'fromHostUserId']) {
        const res = await t.http.post('/v1/bookings/bkg_0000000000000000000000/reassign', { [field]: null }, { token: member.accessToken });
        expect([res.status, res.body.code, details(res)]).toEqual([400, 'VALIDATION_ERROR', [[field, `${field} must not be null`]]]);
      }
    });

    it('erasure with email null says the email must not be null, not its length', async () => {
      const res = await t.http.post('/v1/attendees/erase', { email: null }, owner());
      expect([res.status, details(res)]).toEqual([400, [['email', 'email must not be null']]]);
    });

    it('every optional property of every request class refuses null unless the document says nullable', async () => {
      // One rule for all (Optional, libs/common/src/validation): a property added with class-validator's IsOptional fails here.
      const storage = getMetadataStorage() as unknown as {
        validationMetadatas: Map<new () => object, Array<{ type: string; name?: string; propertyName: string }>>;
      };
      const pipe = createValidationPipe();
      const nullable: string[] = [];
      const wrong: string[] = [];
      for (const [target, metadatas] of storage.validationMetadatas) {
        const optional = metadatas.filter((metadata) => metadata.type === ValidationTypes.CONDITIONAL_VALIDATION);
        for (const { name, propertyName } of optional) {
          const where = `${target.name}.${propertyName}`;
          if (name === 'isOptional') wrong.push(`${where} uses IsOptional`);
          const refused = await pipe.transform({ [propertyName]: null }, { type: 'body', metatype: target, data: '' }).then(
            () => [],
            (error: unknown) => (error instanceof AppError ? (error.details ?? []) : []),
          );
          const named = refused.find((detail) => detail.field === propertyName);
          if (isDocumentedNullable(target.prototype as object, propertyName)) {
            nullable.push(where);
            if (named) wrong.push(`${where} is documented nullable but refuses null`);
          } else if (named?.message !== `${propertyName} must not be null`) {
            wrong.push(`${where} lets null through`);
          }
        }
      }
      expect(wrong).toEqual([]);
      expect(nullable).toEqual(
        expect.arrayContaining(['UpdateMemberDto.bookingLimits', 'BookingLimitsDto.perDay', 'EventTypeOptionalFields.recurrence']),
      );
    });
  });

  it('GET /audit-log with a cursor the service did not issue: 400 naming cursor', async () => {
    const forged = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    const id = 'aud_00000000000000000000000000';
    for (const cursor of [
      forged(`7.-999999999999999999.${id}`),
      forged(`7.999999999999999999.${id}`),
      forged(`7.-0.${id}`),
      forged(`7.0012.${id}`),
      `${forged(`7.12.${id}`)}=`,
      // The transaction part: a non-negative bigint, no more.
      forged(`-1.12.${id}`),
      forged(`9223372036854775808.12.${id}`),
      forged(`99999999999999999999.12.${id}`),
      forged(`007.12.${id}`),
      forged(`12.${id}`),
      'not-a-cursor',
    ]) {
      const res = await t.http.get(`/v1/audit-log?cursor=${cursor}`, owner());
      expect([cursor, res.status, res.body.code, details(res).map(([field]) => field)]).toEqual([
        cursor,
        400,
        'VALIDATION_ERROR',
        ['cursor'],
      ]);
    }
    const issued = (await t.http.get('/v1/audit-log?limit=1', owner())).body.nextCursor as string;
    expect((await t.http.get(`/v1/audit-log?limit=1&cursor=${issued}`, owner())).status).toBe(200);
  });

  it('an admin may change no field of an owner: bookingLimits → 403; an owner may', async () => {
    const url = `/v1/organizations/${org.owner.organizationId}/members/${org.owner.memberId}`;
    const byAdmin = await t.http.patch(url, { bookingLimits: { perDay: 3 } }, { token: admin.accessToken });
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, 'FORBIDDEN']);
    const members = await t.http.get(`/v1/organizations/${org.owner.organizationId}/members?role=owner`, owner());
    expect(members.body.members[0].bookingLimits).toBeNull();
    const ofMember = await t.http.patch(
      `/v1/organizations/${org.owner.organizationId}/members/${member.memberId}`,
      { bookingLimits: { perDay: 3 } },
      { token: admin.accessToken },
    );
    expect(ofMember.status).toBe(200);
    expect((await t.http.patch(url, { bookingLimits: { perDay: 3 } }, owner())).status).toBe(200);
  });

  it('the audit export documents its errors as what it sends: application/json', async () => {
    const document = (await t.http.get('/docs-json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    const responses = document.paths['/v1/audit-log/export'].get.responses;
    expect(Object.keys(responses['200'].content ?? {})).toEqual(['application/x-ndjson']);
    for (const status of ['400', '401', '403'])
      expect([status, Object.keys(responses[status].content ?? {})]).toEqual([status, ['application/json']]);
    const refused = await t.http.get('/v1/audit-log/export?from=soon', owner());
    expect([refused.status, refused.headers.get('content-type')]).toEqual([400, 'application/json; charset=utf-8']);
  });

  it('PUT /out-of-office/by-external-id: a NUL names externalId; its length counts characters, not UTF-16 units', async () => {
    const body = { startsAt: '2027-04-05T00:00:00Z', endsAt: '2027-04-06T00:00:00Z' };
    const nul = await t.http.put('/v1/out-of-office/by-external-id/a%00b', body, owner());
    expect([nul.status, details(nul).map(([field]) => field)]).toEqual([400, ['externalId']]);
    const emoji = '\u{1F600}';
    const ok = await t.http.put(`/v1/out-of-office/by-external-id/${encodeURIComponent(emoji.repeat(200))}`, body, owner());
    expect(ok.status).toBe(200);
    const long = await t.http.put(
      `/v1/out-of-office/by-external-id/${encodeURIComponent(emoji.repeat(201))}`,
      { startsAt: '2027-05-05T00:00:00Z', endsAt: '2027-05-06T00:00:00Z' },
      owner(),
    );
    expect([long.status, details(long).map(([field]) => field)]).toEqual([400, ['externalId']]);
  });

  it('booking.reassigned and schedule.updated entries have their changes', async () => {
    t.clock.advance(1000);
    await putSchedule(t, owner(), 'UTC', [{ dayOfWeek: 2, slots: [{ startTime: '09:00', endTime: '12:00' }] }], admin.userId);
    const [schedule] = await entries('schedule.updated');
    t.clock.advance(1000);
    expect(schedule.changes).toEqual({
      schedules: {
        from: expect.any(Array),
        to: [{ dayOfWeek: 2, slots: [{ startTime: '09:00', endTime: '12:00' }] }],
      },
    });
    await putSchedule(t, owner(), 'Europe/Berlin', [{ dayOfWeek: 2, slots: [{ startTime: '09:00', endTime: '12:00' }] }], admin.userId);
    expect((await entries('schedule.updated'))[0].changes).toEqual({ timezone: { from: 'UTC', to: 'Europe/Berlin' } });
    t.clock.advance(1000);

    await putSchedule(t, owner(), 'UTC', [{ dayOfWeek: 2, slots: [{ startTime: '09:00', endTime: '12:00' }] }], admin.userId);
    const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-09T10:00:00.000Z'), { apiKey: org.apiKey });
    expect(booked.status).toBe(201);
    const moved = await t.http.post(`/v1/bookings/${booked.body.booking.id}/reassign`, { hostUserId: admin.userId }, owner());
    expect(moved.status).toBe(200);
    const [reassigned] = await entries('booking.reassigned');
    expect(reassigned.changes).toEqual({ hostUserIds: { from: [org.owner.userId], to: [admin.userId] } });
  });

  it('a sign-in refused during a lockout is a session.failed entry with reason locked', async () => {
    const login = (password: string) => t.http.post('/v1/auth/login', { email: member.email, password });
    for (let i = 0; i < 10; i++) {
      expect((await login('wrong password 1')).status).toBe(401);
      t.clock.advance(1000);
    }
    const refused = await login(member.password);
    expect(refused.status).toBe(429);
    const failed = (await entries('session.failed')).filter((entry) => entry.actor.id === member.userId);
    expect(failed).toHaveLength(11);
    expect(failed.map((entry) => entry.details?.reason)).toEqual(['locked', ...Array(10).fill('invalid_credentials')]);
  });
});
