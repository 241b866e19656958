import type * as PromClient from 'prom-client';
import type { Counter, Histogram, Registry } from 'prom-client';
import { lazyModule } from './lazy-module.js';

/** prom-client loads with the first Metrics, made only when METRICS_TOKEN is set. */
export const promClient = lazyModule<typeof PromClient>('prom-client');

/** The label of requests that matched no route (unknown paths, the web client's pages). */
export const UNMATCHED_ROUTE = 'unmatched';

// Seconds. Most API answers take a few milliseconds; uploads and searches on a busy instance can
// take seconds. Eleven buckets per route keep the series few.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The Prometheus metrics of one process (`METRICS_TOKEN` set): a registry of its own, so that
 * several apps in one process (the tests) never mix their counts, with the process's default
 * collectors and the counters that code updates as things happen. Gauges read at scrape time are
 * added by features/metrics.
 */
export class Metrics {
  readonly registry: Registry;
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly jobFailures: Counter<'job'>;
  private readonly jobsGivenUp: Counter<'job'>;

  constructor() {
    const { collectDefaultMetrics, Counter, Histogram, Registry } = promClient();
    this.registry = new Registry();
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'kith_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status class (2xx, 4xx, ...)',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'kith_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.jobFailures = new Counter({
      name: 'kith_job_failures_total',
      help: 'Background job runs that failed (each is retried until its attempts run out), by job name',
      labelNames: ['job'],
      registers: [this.registry],
    });
    this.jobsGivenUp = new Counter({
      name: 'kith_jobs_given_up_total',
      help: 'Background jobs given up after their last failed attempt, by job name',
      labelNames: ['job'],
      registers: [this.registry],
    });
  }

  /**
   * Counts one answered request. `route` is the route's pattern (`/api/messages/:id`), never the
   * URL: ids and keys would make a series per message and leak into the metrics.
   */
  observeRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    const pattern = route ?? UNMATCHED_ROUTE;
    this.requests.inc({ method, route: pattern, status: `${Math.floor(statusCode / 100)}xx` });
    this.latency.observe({ method, route: pattern }, seconds);
  }

  /** Counts a failed run of the job `name` (not one stopped by a shutdown). */
  jobFailed(name: string): void {
    this.jobFailures.inc({ job: name });
  }

  /** Counts a job of `name` given up: no attempt left, or a permanent error. */
  jobGivenUp(name: string): void {
    this.jobsGivenUp.inc({ job: name });
  }

  /** The text a scraper reads (Prometheus exposition format) and its content type. */
  async exposition(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
