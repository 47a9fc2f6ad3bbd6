import { ApiExcludeController } from '@nestjs/swagger';
import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { IsEmail, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { DataSource } from 'typeorm';
import { Public } from '@app/common';
import { startTestApp, type TestApp } from './support/app.js';

class ProbeAttendee {
  @IsEmail()
  email!: string;
}

class ProbeBody {
  @IsString()
  name!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10)
  count?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => ProbeAttendee)
  attendee?: ProbeAttendee;
}

/** Routes that exist only in this test: they throw what real features must never leak. */
@Public()
// A test-only route: not part of the published API, so not in its document.
@ApiExcludeController()
@Controller('probe')
class ProbeController {
  constructor(private readonly dataSource: DataSource) {}

  @Post('echo')
  echo(@Body() body: ProbeBody): ProbeBody {
    return body;
  }

  @Get('crash')
  crash(): never {
    throw new Error('secret internal detail /etc/passwd');
  }

  @Get('bad-sql')
  async badSql(): Promise<unknown> {
    return this.dataSource.query('SELECT * FROM table_that_does_not_exist_xyz');
  }

  /** Text PostgreSQL cannot store, reaching a query past the pipe (as a header value could). */
  @Get('nul-sql')
  async nulSql(): Promise<unknown> {
    return this.dataSource.query('SELECT $1::text AS value', ['a\u0000b']);
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('foundation: HTTP basics, errors, docs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ extraModules: [ProbeModule] });
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves liveness and readiness outside /v1 without credentials', async () => {
    const live = await t.http.get('/health');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await t.http.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ok');
  });

  it('publishes OpenAPI with both security schemes and Swagger UI', async () => {
    const doc = await t.http.get('/docs-json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(doc.body.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const ui = await t.http.get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('answers unknown routes with 404 NOT_FOUND in the error shape', async () => {
    const res = await t.http.get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String), requestId: expect.any(String) });
  });

  it('rejects malformed JSON with 400 VALIDATION_ERROR', async () => {
    const res = await t.http.request('POST', '/v1/probe/echo', {
      rawBody: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.text).not.toMatch(/Unexpected|JSON\.parse|position/);
  });

  it('rejects a non-JSON body with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.http.request('POST', '/v1/probe/echo', { rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('rejects a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const res = await t.http.request('POST', '/v1/probe/echo', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('lists one detail per bad field, unknown fields included', async () => {
    const res = await t.http.post('/v1/probe/echo', { count: 99, attendee: { email: 'nope' }, admin: true });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    const fields = res.body.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['admin', 'attendee.email', 'count', 'name']);
    expect(res.body.details.find((d: { field: string }) => d.field === 'admin').message).toMatch(/should not exist/);
  });

  it('accepts a valid body', async () => {
    const res = await t.http.post('/v1/probe/echo', { name: 'ok', count: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'ok', count: 3 });
  });

  it('hides unexpected errors and database errors behind 500 INTERNAL_ERROR', async () => {
    for (const path of ['/v1/probe/crash', '/v1/probe/bad-sql']) {
      const res = await t.http.get(path);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ code: 'INTERNAL_ERROR', message: 'An unexpected error occurred', requestId: expect.any(String) });
      expect(res.text).not.toMatch(/secret|passwd|table_that|SELECT|relation|at \w+ \(/);
    }
  });

  it('refuses NUL characters, lone surrogates and absurd nesting with 400, never 500', async () => {
    const owner = await t.http.post('/v1/auth/register', {
      email: `nul-${Date.now()}@example.com`,
      password: 'long enough pw',
      organizationName: 'Nul Org',
    });
    expect(owner.status).toBe(201);
    const token = owner.body.accessToken as string;
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/v1/auth/login', { email: 'a\u0000@example.com', password: 'long enough pw' }, 'email'],
      ['PATCH', '/v1/users/me', { firstName: 'Ada\u0000' }, 'firstName'],
      ['POST', '/v1/api-keys', { name: 'k\u0000' }, 'name'],
      ['PATCH', `/v1/organizations/${owner.body.organization.id}`, { name: 'x\u0000' }, 'name'],
      ['POST', '/v1/webhooks', { url: 'https://example.com/h', events: ['*'], description: '\u0000' }, 'description'],
      ['POST', '/v1/auth/register', { email: '\ud800@example.com', password: 'long enough pw', organizationName: 'X' }, 'email'],
      ['POST', `/v1/organizations/${owner.body.organization.id}/members`, { email: '\udc00', role: 'member' }, 'email'],
      ['POST', '/v1/probe/echo', { name: 'x', attendee: { email: 'a@b.co', ['k\u0000']: 1 } }, 'attendee'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await t.http.request(method, path, { body, token });
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 400, code: 'VALIDATION_ERROR' });
      expect(res.body.details[0].field).toBe(field);
    }
    const deleted = await t.http.delete('/v1/api-keys/key%00abc', { token });
    expect(deleted.status).toBe(400);
    for (const raw of [
      '['.repeat(100_000) + ']'.repeat(100_000),
      `{"name":"x","attendee":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`,
    ]) {
      const res = await t.http.request('POST', '/v1/auth/login', { rawBody: raw, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    const sql = await t.http.get('/v1/probe/nul-sql');
    expect(sql.status).toBe(400);
    expect(sql.body.code).toBe('VALIDATION_ERROR');
  });

  it('echoes a sane X-Request-Id and generates one otherwise', async () => {
    const echoed = await t.http.get('/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const generated = await t.http.get('/health', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
    const onError = await t.http.get('/v1/nothing', { headers: { 'x-request-id': 'trace-1' } });
    expect(onError.headers.get('x-request-id')).toBe('trace-1');
    expect(onError.body.requestId).toBe('trace-1');
  });
});
