import type { Metrics } from '../lib/metrics.js';
import type { JobHandler, JobQueue, KithJobs } from './job-queue.js';

/**
 * The queue with its handlers' failures counted (`kith_job_failures_total`,
 * `kith_jobs_given_up_total`): each handler is wrapped as it is registered, so both queues (the
 * embedded runner and BullMQ) count the same way without knowing about metrics. A run that throws
 * because the process is stopping is not a failure: it goes back to the queue uncounted.
 */
export function countJobFailures(queue: JobQueue, metrics: Metrics): JobQueue {
  return {
    register<N extends keyof KithJobs>(name: N, handler: JobHandler<KithJobs[N]>): void {
      const counted: JobHandler<KithJobs[N]> = {
        ...handler,
        async run(payload, job) {
          try {
            await handler.run(payload, job);
          } catch (error) {
            if (!job.signal.aborted) metrics.jobFailed(name);
            throw error;
          }
        },
        async onFailure(payload, error, job) {
          metrics.jobGivenUp(name);
          await handler.onFailure?.(payload, error, job);
        },
      };
      queue.register(name, counted);
    },
    enqueue: (db, name, payload, options) => queue.enqueue(db, name, payload, options),
    enqueueMany: (db, name, payloads, options) => queue.enqueueMany(db, name, payloads, options),
    wake: () => queue.wake(),
    start: () => queue.start(),
    stop: () => queue.stop(),
    drain: (names) => queue.drain(names),
  };
}
