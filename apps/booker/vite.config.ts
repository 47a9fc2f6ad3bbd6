import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import { parsedBookerCatalog } from '../api/src/i18n/booker-catalog.js';

/** api-rules.md § Browser booking: booker.js is at most 25 KB gzipped, everything included; the build fails above it. */
const BUDGET_BYTES = 25 * 1024;
const outDir = fileURLToPath(new URL('../../dist/booker', import.meta.url));

function budget(): Plugin {
  let dir = outDir;
  return {
    name: 'booker-budget',
    configResolved(config) {
      dir = config.build.outDir;
    },
    closeBundle() {
      const gzipped = gzipSync(readFileSync(`${dir}/booker.js`)).length;
      if (gzipped > BUDGET_BYTES) throw new Error(`booker.js is ${gzipped} bytes gzipped, over its budget of ${BUDGET_BYTES}`);
    },
  };
}

/**
 * `virtual:booker-en`: the booker's English messages from the shared catalog (contract § 23), parsed by the ICU parser
 * now, so the script carries no parser; other locales come parsed from the API on demand (/booker/locales/<tag>.json).
 */
function englishCatalog(): Plugin {
  const id = 'virtual:booker-en';
  return {
    name: 'booker-english-catalog',
    resolveId: (source) => (source === id ? `\0${id}` : undefined),
    load: (resolved) => (resolved === `\0${id}` ? `export default ${JSON.stringify(parsedBookerCatalog('en').messages)};` : undefined),
  };
}

// The booker is one classic script, served by the API at /booker.js (apps/api/src/admin/booker-script.ts) from dist/booker.
export default defineConfig({
  plugins: [englishCatalog(), budget()],
  // The API's generated types (npm run build:api-types), shared with the console; types only, nothing in the bundle.
  resolve: { alias: { '@app/api-types': fileURLToPath(new URL('../../libs/api-types/src/index.ts', import.meta.url)) } },
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: true,
    lib: {
      entry: fileURLToPath(new URL('./src/main.ts', import.meta.url)),
      name: 'SchedBooker',
      formats: ['iife'],
      fileName: () => 'booker.js',
    },
  },
});
