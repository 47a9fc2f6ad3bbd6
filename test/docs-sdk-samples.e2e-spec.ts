import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, NOW } from './support/bookings.js';
import { blocks, pages, ROOT, type DocBlock } from './support/doc-samples.js';

/** Where the samples are written as modules, each importing the repository's SDK in place of `@scheduling/sdk`. */
const OUT = join(ROOT, 'test', '.docs-sdk-samples');
const SDK = '../../libs/sdk/src/index.js';

const sdkSamples = (): DocBlock[] => pages().flatMap((page) => blocks(page).filter((block) => block.info === 'ts sdk'));
/** The same task written with fetch alone (getting-started.md's comparison): run as the SDK's samples are. */
const fetchSamples = (): DocBlock[] => pages().flatMap((page) => blocks(page).filter((block) => block.info === 'ts fetch'));
/** Lines a partner writes: neither blank nor a comment. */
const linesOf = (block: DocBlock): number =>
  block.text.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//')).length;

/**
 * Every ```ts sdk block of docs/integrating/ runs as a module against the real app, with the variables the curl
 * samples use (API, KEY, EVENT_TYPE_ID …) in process.env; a module that exports `handle` (webhooks.md) is also called
 * with a delivery signed as the service signs it.
 */
describe('the SDK samples of docs/integrating/', () => {
  let t: TestApp;
  const saved = { ...process.env };

  beforeAll(async () => {
    t = await startTestApp();
    mkdirSync(OUT, { recursive: true });
  });
  afterAll(async () => {
    process.env = saved;
    rmSync(OUT, { recursive: true, force: true });
    await t.close();
  });

  it('there are SDK samples on the pages that promise them', () => {
    const pagesWithSamples = [...new Set(sdkSamples().map((block) => block.page))].sort();
    expect(pagesWithSamples).toEqual(['errors.md', 'getting-started.md', 'oauth.md', 'webhooks.md']);
  });

  it('getting-started.md states the lines each way takes, as its two samples have them', () => {
    const page = readFileSync(join(ROOT, 'docs', 'integrating', 'getting-started.md'), 'utf8');
    const [, sdk, fetch] = /<!-- lines: sdk=(\d+) fetch=(\d+) -->/.exec(page) ?? [];
    const [sdkBlock] = sdkSamples().filter((block) => block.page === 'getting-started.md' && block.text.includes('verifyWebhook'));
    const [fetchBlock] = fetchSamples();
    expect([linesOf(sdkBlock), linesOf(fetchBlock)]).toEqual([Number(sdk), Number(fetch)]);
    expect(page).toContain(`**${sdk} lines**`);
    expect(page).toContain(`**${fetch} lines**`);
  });

  it.each([...sdkSamples(), ...fetchSamples()].map((block) => [`${block.page}:${block.line}`, block] as const))(
    'runs %s',
    async (where, block) => {
      t.clock.set(NOW);
      const org = await bookingOrg(t);
      Object.assign(process.env, {
        API: t.url,
        ISSUER: t.url,
        FROM: '2027-03-01',
        TO: '2027-03-05',
        KEY: org.apiKey,
        EVENT_TYPE_ID: org.eventTypeId,
      });
      const file = join(OUT, `${where.replace(/[^a-z0-9]+/gi, '-')}.ts`);
      const source = block.text.replace(/from '@scheduling\/sdk'/g, `from ${JSON.stringify(SDK)}`);
      expect(source !== block.text).toBe(block.info === 'ts sdk');
      writeFileSync(file, source);
      const module = (await import(pathToFileURL(file).href)) as {
        handle?: (payload: string, headers: Record<string, string>, secret: string) => void;
      };
      if (module.handle) {
        const secret = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
        const payload = JSON.stringify({
          id: 'whevt_x',
          type: 'booking.created',
          createdAt: NOW,
          livemode: true,
          data: { booking: { id: 'bkg_x' } },
        });
        const id = 'whdel_docs';
        const timestamp = new Date();
        const signature = new Webhook(secret).sign(id, timestamp, payload);
        const headers = {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        };
        expect(() => module.handle!(payload, headers, secret)).not.toThrow();
        expect(() => module.handle!(payload.replace('bkg_x', 'bkg_y'), headers, secret)).toThrow();
      }
    },
  );
});
