import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

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

// The booker is one classic script, served by the API at /booker.js (apps/api/src/admin/booker-script.ts) from dist/booker.
export default defineConfig({
  plugins: [budget()],
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
