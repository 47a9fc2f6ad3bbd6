import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { AxeBuilder } from '@axe-core/playwright';
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser, type Page } from 'playwright-core';
import { buildOnce } from './process.js';

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
/** Screenshots and timings of the browser tests (git-ignored). */
export const OUTPUT_DIR = join(ROOT, 'test-output', 'console');

/** This run's builds, shared by the files that need them (test/setup/global-teardown.ts removes them). */
export const RUN_BUILDS = join(tmpdir(), `sched-builds-${process.env.TEST_TEMPLATE_DATABASE ?? process.pid}`);

/**
 * A Vite build of one app (its config) into this run's directory, built once for every file that asks (each build is
 * 4 to 12 s of CPU). Its own directory, not dist/: the quick-start test may be building dist/ meanwhile.
 */
function viteBuild(config: string, name: string): Promise<string> {
  return buildOnce(RUN_BUILDS, name, async (outDir) => {
    await run(
      process.execPath,
      [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', config, '--outDir', outDir, '--logLevel', 'error'],
      { cwd: ROOT },
    );
  });
}

/** The console, from the committed generated client; test/openapi-client checks that client against the document. */
export function buildConsole(): Promise<string> {
  return viteBuild('apps/admin/vite.config.ts', 'console');
}

/** The booker (`apps/booker`); its Vite config fails the build over 25 KB gzipped. */
export function buildBooker(): Promise<string> {
  return viteBuild('apps/booker/vite.config.ts', 'booker');
}

/** Gzipped bytes of the scripts and stylesheets index.html loads: the console's initial load. */
export function initialLoadBytes(dir: string): number {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const assets = [...html.matchAll(/(?:src|href)="\/admin\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  return assets.reduce((sum, asset) => sum + gzipSync(readFileSync(join(dir, asset))).length, 0);
}

/** @sparticuz/chromium's defaults that a test of what a browser does must not have. */
const LEFT_OUT_ARGS = new Set([
  // Kills the browser with its first page.
  '--single-process',
  // Would let every page read every origin's answers: CORS and the same-origin policy must be the real ones.
  '--disable-web-security',
  '--allow-running-insecure-content',
]);

/**
 * Its defaults emulate a GPU in software (ANGLE on SwiftShader) for WebGL; the pages under test draw no WebGL, and
 * Chromium's own software compositor without a GPU process costs a quarter less CPU (the console's browser file:
 * 42 s of CPU with the emulation, 32 s without, alone on the 2-core machine).
 */
const GPU_EMULATION = /^--(use-gl|use-angle|enable-unsafe-swiftshader|in-process-gpu|ignore-gpu-blocklist)\b/;

/**
 * A real Chromium from the npm registry (`@sparticuz/chromium`; Playwright's own download is not reachable
 * here), with the same-origin policy on: its serverless defaults turn web security off.
 */
export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args.filter((arg) => !LEFT_OUT_ARGS.has(arg) && !GPU_EMULATION.test(arg)), '--disable-gpu'],
    headless: true,
  });
}

/** Serious and critical accessibility violations on the page as it is now, by rule and target. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`));
}

/**
 * The page at 1280 and at 390 pixels wide, full length, under test-output/console/; answers how wide the document is
 * at 390 (wider: something does not fit a phone). Two layouts in all, the page's own size restored after.
 */
export async function screenshots(page: Page, name: string): Promise<number> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const original = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(OUTPUT_DIR, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  const phoneWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
  await page.screenshot({ path: join(OUTPUT_DIR, `${name}-390.png`), fullPage: true });
  await page.setViewportSize(original);
  return phoneWidth;
}
