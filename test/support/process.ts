import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { execFile, spawn, type ChildProcess } from 'node:child_process';

export interface SpawnedProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Runs a shell command as a user would, capturing its output for assertions and debugging. */
export function spawnShell(command: string, env: NodeJS.ProcessEnv, cwd: string, user?: { uid: number; gid: number }): SpawnedProcess {
  const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...user });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** `what` names the awaited thing in the timeout's error; a function is asked at the timeout (e.g. for output so far). */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string | (() => string)): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The environment a newcomer has: none of the test run's database settings. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const key of Object.keys(env)) {
    if (key.startsWith('TEST_') || key === 'DATABASE_URL' || key === 'REDIS_URL' || key.startsWith('JEST')) delete env[key];
  }
  delete env.NODE_OPTIONS;
  return env;
}

/** The command lines of every process below `pid`, outermost first (what a stuck child is doing). */
export function descendantCommands(pid: number): string[] {
  const found: string[] = [];
  walkDescendants(pid, (_child, argv) => found.push(argv.filter(Boolean).join(' ').slice(0, 160)));
  return found;
}

/** The node processes below `pid` whose command line contains `needle` (npm runs the server through sh). */
export function descendantsMatching(pid: number, needle: string): number[] {
  const found: number[] = [];
  walkDescendants(pid, (child, argv) => {
    if (/(^|\/)node$/.test(argv[0]) && argv.some((arg) => arg.includes(needle))) found.push(child);
  });
  return found;
}

function walkDescendants(pid: number, seen: (child: number, argv: string[]) => void): void {
  const visit = (parent: number): void => {
    let children: number[];
    try {
      const list = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim();
      children = list ? list.split(/\s+/).map(Number) : [];
    } catch {
      return;
    }
    for (const child of children) {
      try {
        seen(child, readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0'));
      } catch {
        // gone already
      }
      visit(child);
    }
  };
  visit(pid);
}

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const run = promisify(execFile);

/**
 * Compiles these entry points (paths from the repository's root) as production runs them, compiled JS, into
 * `buildDir` (under the repository, so node_modules resolve), with only what they import: a colleague's unrelated
 * work in progress cannot break the build, and it never races a build of dist/. `typeCheck: false` emits without
 * checking types (a third of the CPU; `npm run typecheck` checks them).
 */
export async function compileEntries(buildDir: string, entries: readonly string[]): Promise<void> {
  mkdirSync(buildDir, { recursive: true });
  const tsconfig = join(buildDir, 'tsconfig.json');
  const root = relative(buildDir, ROOT);
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(root, 'tsconfig.build.json'),
      compilerOptions: { outDir: '.', rootDir: root },
      include: entries.map((entry) => join(root, entry)),
    }),
  );
  // --noCheck: the same JavaScript (declaration-free emit needs no checking), without type-checking the whole program
  // again: `npm run typecheck` does that once, and each check here cost 10 to 15 s of CPU.
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsconfig, '--noCheck'], { cwd: ROOT });
  await run(process.execPath, [join(ROOT, 'node_modules/tsc-alias/dist/bin/index.js'), '-p', tsconfig], { cwd: ROOT });
}

/** This run's builds whose imports resolve from the repository's node_modules (test/setup/global-teardown.ts removes them). */
export const REPO_RUN_BUILDS = join(ROOT, '.data', `test-builds-${process.env.TEST_TEMPLATE_DATABASE ?? process.pid}`);

/**
 * `build` into `parent/name` once for every test file of the run that asks: the first to ask builds, the others wait
 * for it (a build is seconds of CPU, and the files that need one often start together). A failed build fails every
 * file that asked, with its message.
 */
export async function buildOnce(parent: string, name: string, build: (outDir: string) => Promise<void>): Promise<string> {
  const outDir = join(parent, name);
  const [done, failed] = [`${outDir}.done`, `${outDir}.failed`];
  mkdirSync(parent, { recursive: true });
  try {
    mkdirSync(`${outDir}.lock`);
  } catch {
    // waitFor retries a probe that throws, so the failure is an answer here, thrown after.
    const outcome = await waitFor(
      async () => (existsSync(failed) ? 'failed' : existsSync(done) ? 'done' : undefined),
      180_000,
      `another test file's build of ${name}`,
    );
    if (outcome === 'failed') throw new Error(readFileSync(failed, 'utf8'));
    return outDir;
  }
  try {
    await build(outDir);
  } catch (error) {
    writeFileSync(failed, `The build of ${name} failed: ${(error as Error).message}`);
    throw error;
  }
  writeFileSync(done, '');
  return outDir;
}

/**
 * The API's and the worker's entry points compiled as production runs them (compiled JS, `node <entry>`), once per run
 * for every file that starts them as processes.
 */
export async function compiledServer(): Promise<{ api: string; worker: string }> {
  const dir = await buildOnce(REPO_RUN_BUILDS, 'server', (outDir) =>
    compileEntries(outDir, ['apps/api/src/main.ts', 'apps/worker/src/main.ts']),
  );
  return { api: join(dir, 'apps/api/src/main.js'), worker: join(dir, 'apps/worker/src/main.js') };
}

/** Ends a server a test started (SIGTERM) and waits for it to exit. */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
