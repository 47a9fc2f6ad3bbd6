import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '@app/common';
import { startTestApp, type TestApp } from './support/app.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

/** The API reference as partners read it: the published document, linted by Redocly's own CLI with redocly.yaml. */
describe('the API reference', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp();
    dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes `redocly lint` (recommended rules and redocly.yaml) with no error and no warning', async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, await (await fetch(`${t.url}/docs-json`)).text());
    const run = await promisify(execFile)(
      process.execPath,
      [cli, 'lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000'],
      { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 << 20 },
    ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
    const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
    const problems = report.problems.map(
      (problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('lists a 4XX for every operation but the probes, and names the codes of every error response', async () => {
    const document = (await (await fetch(`${t.url}/docs-json`)).json()) as OpenAPIObject;
    const codes = new Set(Object.keys(ERROR_STATUS));
    const without4xx: string[] = [];
    const unnamed: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const operation of Object.values(item as Record<string, OperationObject>)) {
        const statuses = Object.keys(operation.responses);
        if (!path.startsWith('/health') && !statuses.some((status) => status.startsWith('4'))) without4xx.push(operation.operationId!);
        for (const status of statuses.filter((candidate) => /^[45]/.test(candidate))) {
          // "CODE: why" or "CODE, CODE or CODE: why": each a code of the API's, of this status.
          const named = /^([A-Z_]+(?:(?:, | or )[A-Z_]+)*)\b/.exec((operation.responses[status] as ResponseObject).description)?.[1];
          const listed = named?.split(/, | or /) ?? [];
          const wrong = listed.filter((code) => !codes.has(code) || String(ERROR_STATUS[code as ErrorCode]) !== status);
          if (listed.length === 0 || wrong.length > 0)
            unnamed.push(`${operation.operationId} ${status}: ${(operation.responses[status] as ResponseObject).description}`);
        }
      }
    }
    expect(without4xx).toEqual([]);
    expect(unnamed).toEqual([]);
  });

  it('shows an example of every JSON request body and answer (redocly lint holds each to its schema)', async () => {
    const document = (await (await fetch(`${t.url}/docs-json`)).json()) as OpenAPIObject;
    const missing: string[] = [];
    type Media = { example?: unknown; examples?: unknown } | undefined;
    const hasExample = (media: Media): boolean => media === undefined || media.example !== undefined || media.examples !== undefined;
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item as Record<string, OperationObject>)) {
        const body = operation.requestBody as { content: Record<string, Media> } | undefined;
        if (body && !hasExample(body.content['application/json'])) missing.push(`${operation.operationId} request`);
        for (const [status, response] of Object.entries(operation.responses)) {
          if (!hasExample((response as ResponseObject).content?.['application/json'])) missing.push(`${operation.operationId} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
