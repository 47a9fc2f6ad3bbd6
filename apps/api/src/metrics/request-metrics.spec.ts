import { Registry } from 'prom-client';
import { RequestMetrics } from './request-metrics.js';

async function scrape(requests: RequestMetrics): Promise<string> {
  const registry = new Registry();
  for (const family of requests.families()) registry.registerMetric(family);
  return registry.metrics();
}

describe('RequestMetrics', () => {
  it('counts by method, route and status, and puts each duration in the first bucket whose bound it does not pass', async () => {
    const requests = new RequestMetrics();
    requests.count('GET', '/v1/bookings/:id', 200, 0.005);
    requests.count('GET', '/v1/bookings/:id', 200, 0.0051);
    requests.count('GET', '/v1/bookings/:id', 404, 12);
    requests.count('POST', '/v1/bookings', 201, 0.3);
    const text = await scrape(requests);
    expect(text).toContain('http_requests_total{method="GET",route="/v1/bookings/:id",status="200"} 2\n');
    expect(text).toContain('http_requests_total{method="GET",route="/v1/bookings/:id",status="404"} 1\n');
    expect(text).toContain('http_requests_total{method="POST",route="/v1/bookings",status="201"} 1\n');
    const buckets = [
      ...text.matchAll(/http_request_duration_seconds_bucket\{method="GET",route="\/v1\/bookings\/:id",le="([^"]+)"\} (\d+)/g),
    ];
    expect(buckets.map(([, le, value]) => `${le}:${value}`)).toEqual([
      '0.005:1',
      '0.01:2',
      '0.025:2',
      '0.05:2',
      '0.1:2',
      '0.25:2',
      '0.5:2',
      '1:2',
      '2.5:2',
      '5:2',
      '10:2',
      '+Inf:3',
    ]);
    expect(text).toContain('http_request_duration_seconds_sum{method="GET",route="/v1/bookings/:id"} 12.0101\n');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/v1/bookings/:id"} 3\n');
    expect(text).toContain('# TYPE http_requests_total counter\n');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram\n');
  });

  it('escapes a label value as the text format asks', async () => {
    const requests = new RequestMetrics();
    requests.count('GET', 'a"b\\c\nd', 200, 0.001);
    expect(await scrape(requests)).toContain('http_requests_total{method="GET",route="a\\"b\\\\c\\nd",status="200"} 1\n');
  });
});
