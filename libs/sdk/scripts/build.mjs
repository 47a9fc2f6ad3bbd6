// Builds the SDK twice (npm run build:sdk): ES modules in dist/esm and CommonJS in dist/cjs, each marked by a
// package.json of its own so Node reads its files as what they are. `types: []` and the DOM library keep Node-only
// APIs out: the same files run in browsers and on Node 20+.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const here = new URL('..', import.meta.url);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(new URL('dist', here), { recursive: true, force: true });
for (const [config, type] of [
  ['tsconfig.esm.json', 'module'],
  ['tsconfig.cjs.json', 'commonjs'],
]) {
  execFileSync(process.execPath, [tsc, '-p', new URL(config, here).pathname], { stdio: 'inherit' });
  const out = new URL(`dist/${type === 'module' ? 'esm' : 'cjs'}/`, here);
  mkdirSync(out, { recursive: true });
  writeFileSync(new URL('package.json', out), `${JSON.stringify({ type })}\n`);
}
