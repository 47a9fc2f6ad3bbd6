import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

// The console is served by the API at /admin (apps/api/src/admin/admin-console.ts) from dist/admin.
export default defineConfig({
  root: here,
  base: '/admin/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // The API's generated types and enum lists (npm run build:api-types), shared with the booker.
  resolve: { alias: { '@app/api-types': fileURLToPath(new URL('../../libs/api-types/src/index.ts', import.meta.url)) } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/admin', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle: the console's initial load stays well under its 150 KB budget (docs/contributing/performance.md).
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
});
