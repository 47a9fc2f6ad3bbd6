import fc from 'fast-check';
import { changesBetween, REDACTED, redact, redactChanges } from './redact.js';

describe('audit redaction', () => {
  it.each([
    ['apiKey', true],
    ['key', true],
    ['keyHash', true],
    ['secret', true],
    ['signingSecret', true],
    ['password', true],
    ['sealedPassword', true],
    ['refreshToken', true],
    ['holdToken', true],
    ['url', true],
    ['feedUrl', true],
    ['credentials', true],
    ['authorization', true],
    ['keyPrefix', false],
    ['name', false],
    ['title', false],
    ['role', false],
    ['events', false],
  ])('%s is a secret: %s', (name, secret) => {
    expect(redact({ [name]: 'value' })).toEqual({ [name]: secret ? REDACTED : 'value' });
  });

  it('redacts at any depth, in arrays too', () => {
    expect(redact({ calendars: [{ id: 'c1', url: 'https://x/feed.ics?token=1' }], nested: { deeper: { password: 'p' } } })).toEqual({
      calendars: [{ id: 'c1', url: REDACTED }],
      nested: { deeper: { password: REDACTED } },
    });
  });

  it('a changed secret keeps that it changed, not its values', () => {
    expect(redactChanges({ url: { from: 'a', to: 'b' }, description: { from: null, to: 'x' } })).toEqual({
      url: { from: REDACTED, to: REDACTED },
      description: { from: null, to: 'x' },
    });
  });

  it('changes list only the fields that changed, never updatedAt', () => {
    const before = { title: 'A', durationMinutes: 30, hosts: ['u1'], updatedAt: new Date(0) };
    expect(changesBetween(before, { title: 'A', durationMinutes: 45, hosts: ['u1', 'u2'], updatedAt: new Date(1) })).toEqual({
      durationMinutes: { from: 30, to: 45 },
      hosts: { from: ['u1'], to: ['u1', 'u2'] },
    });
    expect(changesBetween(before, { title: 'A' })).toBeUndefined();
  });

  it('no secret-named field survives, whatever the shape (property)', () => {
    const names = fc.constantFrom('secret', 'token', 'password', 'url', 'apiKey', 'name', 'title', 'x');
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.integer(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(names, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (input) => {
        const out = JSON.stringify(redact(input));
        const leaked = /"(secret|token|password|url|apiKey)":(?!"\[redacted\]")/.test(out);
        return !leaked;
      }),
    );
  });
});
