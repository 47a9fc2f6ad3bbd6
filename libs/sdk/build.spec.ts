import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** What `npm run build:sdk` makes, loaded as a package's users load it: require() from CommonJS, import from ESM. */
describe('the SDK build', () => {
  beforeAll(() => {
    execFileSync(process.execPath, [join(here, 'scripts', 'build.mjs')], { stdio: 'pipe' });
  }, 120_000);

  const load = (code: string, ...flags: string[]): string =>
    execFileSync(process.execPath, [...flags, '-e', code], { cwd: here, encoding: 'utf8' }).trim();

  it('loads with require() (CommonJS) and with import (ESM), with the same names', () => {
    const required = load(
      `const sdk = require('@scheduling/sdk'); console.log(process.versions.node.split('.')[0] >= 20, JSON.stringify(Object.keys(sdk).sort()))`,
    );
    const imported = load(
      `const sdk = await import('@scheduling/sdk'); console.log(process.versions.node.split('.')[0] >= 20, JSON.stringify(Object.keys(sdk).sort()))`,
      '--input-type=module',
    );
    expect(required).toBe(imported);
    const [, names] = required.split(' ');
    expect(JSON.parse(names)).toEqual(expect.arrayContaining(['createClient', 'unwrap', 'paginate', 'verifyWebhook', 'oauth', 'ApiError']));
  });

  it('is CommonJS under require() and ES modules under import', () => {
    expect(load(`console.log(require.resolve('@scheduling/sdk'))`)).toMatch(/dist\/cjs\/sdk\/src\/index\.js$/);
    expect(load(`console.log(import.meta.resolve('@scheduling/sdk'))`, '--input-type=module')).toMatch(/dist\/esm\/sdk\/src\/index\.js$/);
    expect(
      load(
        `const { ApiError, NotFoundError } = require('@scheduling/sdk'); console.log(new NotFoundError({ status: 404, code: 'NOT_FOUND', message: 'x' }) instanceof ApiError)`,
      ),
    ).toBe('true');
  });
});
