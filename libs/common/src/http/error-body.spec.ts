import { BadRequestException, NotFoundException } from '@nestjs/common';
import { AppError } from '../errors/app-error.js';
import { ErrorCode } from '../errors/error-code.js';
import { renderError } from './error-body.js';

describe('renderError', () => {
  it('renders AppError with its code, details and headers', () => {
    const rendered = renderError(new AppError(ErrorCode.RATE_LIMITED, 'slow down', undefined, { 'Retry-After': '5' }), 'req_1');
    expect(rendered).toMatchObject({
      status: 429,
      body: { code: 'RATE_LIMITED', message: 'slow down', requestId: 'req_1' },
      headers: { 'Retry-After': '5' },
    });
    expect(renderError(AppError.validation('email', 'bad'), 'r').body.details).toEqual([{ field: 'email', message: 'bad' }]);
  });

  it.each(['40P01', '40001'])('answers a transaction that lost to a concurrent one (%s) with a retryable 503', (sqlState) => {
    const rendered = renderError(Object.assign(new Error('deadlock detected'), { driverError: { code: sqlState } }), 'r');
    expect(rendered).toMatchObject({
      status: 503,
      body: { code: 'SERVICE_UNAVAILABLE' },
      headers: { 'Retry-After': '1' },
      unexpected: false,
    });
    expect(rendered.body.message).not.toMatch(/deadlock/);
  });

  it('adds WWW-Authenticate to every 401', () => {
    expect(renderError(AppError.unauthorized(), 'r').headers['WWW-Authenticate']).toContain('Bearer');
    expect(renderError(new AppError(ErrorCode.KEY_REVOKED, 'x'), 'r').headers['WWW-Authenticate']).toContain('ApiKey');
  });

  it.each([
    [new NotFoundException('Cannot GET /secret/path'), 404, 'NOT_FOUND'],
    [new BadRequestException('Unexpected token } in JSON at position 7'), 400, 'VALIDATION_ERROR'],
    [Object.assign(new Error('Body is too large: internal detail'), { statusCode: 413 }), 413, 'PAYLOAD_TOO_LARGE'],
    [Object.assign(new Error('Unsupported Media Type: text/plain'), { statusCode: 415 }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [Object.assign(new Error('relation "users" does not exist'), { driverError: { code: '42P01' } }), 500, 'INTERNAL_ERROR'],
    [
      Object.assign(new Error('conflicting key value violates exclusion constraint'), { driverError: { code: '23P01' } }),
      409,
      'SLOT_UNAVAILABLE',
    ],
    [new TypeError("Cannot read properties of undefined (reading 'x')"), 500, 'INTERNAL_ERROR'],
    ['a thrown string', 500, 'INTERNAL_ERROR'],
  ])('maps %s to %i %s without its message', (error, status, code) => {
    const rendered = renderError(error, 'r');
    expect(rendered.status).toBe(status);
    expect(rendered.body.code).toBe(code);
    const message = error instanceof Error ? error.message : String(error);
    expect(rendered.body.message).not.toBe(message);
    expect(JSON.stringify(rendered.body)).not.toMatch(/secret|position|relation|internal detail|reading/);
  });
});
