import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';

export interface SpawnedProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Runs a shell command as a user would, capturing its output for assertions and debugging. */
export function spawnShell(command: string, env: NodeJS.ProcessEnv, cwd: string): SpawnedProcess {
  const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
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

/** The node processes below `pid` whose command line contains `needle` (npm runs the server through sh). */
export function descendantsMatching(pid: number, needle: string): number[] {
  const found: number[] = [];
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
        const argv = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
        if (/(^|\/)node$/.test(argv[0]) && argv.some((arg) => arg.includes(needle))) found.push(child);
      } catch {
        // gone already
      }
      visit(child);
    }
  };
  visit(pid);
  return found;
}
