import { Webhook } from 'standardwebhooks';
import { newSigningSecret, SecretBox } from './secret-box.js';

const MASTER = 'a-jwt-secret-that-is-at-least-32-characters';

describe('SecretBox', () => {
  it('round-trips a secret without storing it in clear', () => {
    const box = new SecretBox(MASTER);
    const secret = newSigningSecret();
    const sealed = box.seal(secret, 'wh_one');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, 'wh_one')).toBe(secret);
    expect(box.seal(secret, 'wh_one')).not.toBe(sealed);
  });

  it('refuses another row, another key and a tampered value', () => {
    const sealed = new SecretBox(MASTER).seal(newSigningSecret(), 'wh_one');
    expect(() => new SecretBox(MASTER).open(sealed, 'wh_two')).toThrow();
    expect(() => new SecretBox(`${MASTER}-rotated`).open(sealed, 'wh_one')).toThrow();
    const [v, iv, tag, ct] = sealed.split('.');
    const flipped = `${ct[0] === 'A' ? 'B' : 'A'}${ct.slice(1)}`;
    expect(() => new SecretBox(MASTER).open([v, iv, tag, flipped].join('.'), 'wh_one')).toThrow();
    expect(() => new SecretBox(MASTER).open('garbage', 'wh_one')).toThrow();
  });

  it('makes Standard Webhooks secrets of 32 random bytes', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const body = '{"id":"whevt_x"}';
    const timestamp = new Date();
    const signature = new Webhook(secret).sign('whevt_x', timestamp, body);
    const headers = {
      'webhook-id': 'whevt_x',
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual({ id: 'whevt_x' });
  });
});
