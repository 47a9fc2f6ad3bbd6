import type { Metric } from 'prom-client';

/** The buckets of http_request_duration_seconds, seconds (prom-client's defaults). */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What one route and method have answered: counts per status, and the durations' histogram. */
interface Series {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Per bucket (not cumulative), the last one past the largest bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

type Sample = { metricName?: string; labels: Record<string, string | number>; value: number };

/**
 * http_requests_total{method,route,status} and http_request_duration_seconds{method,route}, counted by the one
 * onResponse hook of every request. prom-client's own Counter and Histogram build a label key string and objects on
 * every call (about 2 µs a request, measured); here a request finds its series by two Map lookups, once per route and
 * method ever allocated, and adds to numbers. The samples are built only when scraped, and handed to prom-client's
 * registry (its text format and escaping) as two metrics of its shape.
 */
export class RequestMetrics {
  private readonly routes = new Map<string, Map<string, Series>>();

  count(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.routes.get(route);
    if (!byMethod) this.routes.set(route, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (!series) {
      series = { method, route, byStatus: new Map(), buckets: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0, count: 0 };
      byMethod.set(method, series);
    }
    series.byStatus.set(status, (series.byStatus.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++;
    series.buckets[bucket]++;
    series.sum += seconds;
    series.count++;
  }

  /** The two families, for `Registry.registerMetric`. */
  families(): Metric[] {
    return [
      registryMetric('http_requests_total', 'HTTP requests answered, by method, route template and status.', 'counter', () =>
        this.requestSamples(),
      ),
      registryMetric(
        'http_request_duration_seconds',
        'Time from a request arriving to its answer sent, by method and route template.',
        'histogram',
        () => this.durationSamples(),
      ),
    ];
  }

  private *series(): Iterable<Series> {
    for (const byMethod of this.routes.values()) yield* byMethod.values();
  }

  private requestSamples(): Sample[] {
    const samples: Sample[] = [];
    for (const { method, route, byStatus } of this.series()) {
      for (const [status, value] of byStatus) samples.push({ labels: { method, route, status: String(status) }, value });
    }
    return samples;
  }

  private durationSamples(): Sample[] {
    const samples: Sample[] = [];
    for (const { method, route, buckets, sum, count } of this.series()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += buckets[i];
        samples.push({ metricName: 'http_request_duration_seconds_bucket', labels: { method, route, le }, value: cumulative });
      });
      samples.push({ metricName: 'http_request_duration_seconds_bucket', labels: { method, route, le: '+Inf' }, value: count });
      samples.push({ metricName: 'http_request_duration_seconds_sum', labels: { method, route }, value: sum });
      samples.push({ metricName: 'http_request_duration_seconds_count', labels: { method, route }, value: count });
    }
    return samples;
  }
}

/**
 * A metric as prom-client's Registry reads one when it renders a scrape: name, help, type, and `get()` with the
 * samples (each may name its own line, as a histogram's _bucket, _sum and _count do). The registry's type names only
 * its own classes, hence the cast.
 */
function registryMetric(name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => undefined,
  };
  return metric as unknown as Metric;
}
