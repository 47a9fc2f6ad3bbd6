import { describeSendError, smtpUrlSecrets } from './mail-errors.js';

describe('describeSendError', () => {
  const secrets = smtpUrlSecrets('smtp://mailer:p%40ss-Secret@smtp.example.test:587');

  it('keeps the code and the first line, without credentials', () => {
    const error = Object.assign(new Error('Invalid login: 535 auth failed for mailer / p@ss-Secret\nsecond line'), {
      code: 'EAUTH',
      responseCode: 535,
    });
    const failure = describeSendError(error, secrets);
    expect(failure.code).toBe('EAUTH 535');
    expect(failure.reason).toBe('EAUTH 535: Invalid login: 535 auth failed for [redacted] / [redacted]');
  });

  it('removes credentials from any URL in the text and caps the length', () => {
    const failure = describeSendError(new Error(`cannot reach smtp://someone:other@host ${'x'.repeat(500)}`));
    expect(failure.reason).toContain('smtp://[redacted]@host');
    expect(failure.reason).not.toContain('other');
    expect(failure.reason.length).toBeLessThanOrEqual(300);
  });

  it('describes values that are not errors', () => {
    expect(describeSendError('boom')).toEqual({ code: 'Error', reason: 'Error: boom' });
  });
});
