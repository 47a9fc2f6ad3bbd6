/**
 * Any benchmark with tracing on (docs/contributing/performance.md, "Tracing and metrics"): preloaded before the benchmark's own imports, it starts
 * a stand-in OTLP/HTTP collector in a process of its own (it answers 200 to every export, as a collector that keeps
 * up does), points OTEL_EXPORTER_OTLP_ENDPOINT at it and starts the SDK as the API's entry point does.
 *
 *   npm run bench:build
 *   node --import ./dist-bench/bench/support/traced.js dist-bench/bench/auth.bench.js
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadTracing } from '../../apps/api/src/tracing/load.js';

const COLLECTOR = `
  const server = require('node:http').createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
  process.stdin.on('end', () => process.exit(0)).resume();
`;

// The collector ends with this process: its stdin closes.
const collector = spawn(process.execPath, ['-e', COLLECTOR], { stdio: ['pipe', 'pipe', 'inherit'] });
const [port] = (await once(collector.stdout, 'data')) as [Buffer];
collector.stdout.destroy();
collector.unref();
(collector.stdin as unknown as { unref(): void }).unref();
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${String(port).trim()}`;
const tracing = await loadTracing('scheduling-api-bench');
process.once('beforeExit', () => void tracing?.shutdown());
console.log(`Tracing on: spans to ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT} (a stand-in collector)`);
