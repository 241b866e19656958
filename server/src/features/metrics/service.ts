import { stat } from 'node:fs/promises';
import type { AppContext } from '../../context.js';
import type { Clock } from '../../lib/clock.js';
import { promClient, type Metrics } from '../../lib/metrics.js';
import { eventStreamsOf } from '../live/stream.js';
import { countUnfinishedJobs, fileTotals, postgresDatabaseSize } from './queries.js';

/** How long the database's numbers are reused: scrapers (one or several) ask every 15 to 60 s. */
const STORE_CACHE_MS = 10_000;
/** The file totals read every row of `files`: much less often. */
const FILES_CACHE_MS = 5 * 60_000;

/** The job states the gauges report; `done` rows are history, not a queue. */
const JOB_STATES = ['queued', 'running', 'failed'] as const;

/**
 * A value loaded at most once per `ttlMs` of the app's clock, whatever the number of scrapes:
 * scrapes that arrive while it loads share that load, so a slow database never stacks up queries.
 */
function cached<T>(clock: Clock, ttlMs: number, load: () => Promise<T>): () => Promise<T> {
  let value: { at: number; promise: Promise<T> } | null = null;
  return () => {
    const now = clock.now();
    if (value === null || now - value.at >= ttlMs || now < value.at) {
      const promise = load();
      value = { at: now, promise };
      // A failed load is not kept: the next scrape tries again.
      promise.catch(() => {
        if (value?.promise === promise) value = null;
      });
    }
    return value.promise;
  };
}

/** The SQLite file and its WAL, in bytes (the WAL may be absent between checkpoints). */
async function sqliteSize(file: string): Promise<number> {
  const sizes = await Promise.all(
    [file, `${file}-wal`].map((name) =>
      stat(name)
        .then((s) => s.size)
        .catch(() => 0),
    ),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}

/**
 * The gauges a scrape reads when it comes: open live streams (from memory), the job and mail
 * queues, the database's size and the stored files (from the database, cached). Nothing is queried
 * per request. A store that does not answer is logged and its gauges keep their last values (the
 * job and mail gauges are left empty), and the rest of the scrape is still served.
 */
export function registerScrapeGauges(ctx: AppContext, metrics: Metrics): void {
  const { Gauge } = promClient();
  // Once per registry, however many apps serve it.
  if (metrics.registry.getSingleMetric('kith_live_streams') !== undefined) return;
  const registers = [metrics.registry];
  const { config, db, log, clock } = ctx;

  const jobCounts = cached(clock, STORE_CACHE_MS, () => countUnfinishedJobs(db.kysely));
  const databaseSize = cached(clock, STORE_CACHE_MS, () =>
    config.database.kind === 'sqlite' ? sqliteSize(config.database.file) : postgresDatabaseSize(db.kysely),
  );
  const files = cached(clock, FILES_CACHE_MS, () => fileTotals(db.kysely));

  /** Runs `read`, or logs why it could not and reports nothing. */
  const guarded = async (what: string, read: () => Promise<void>) => {
    try {
      await read();
    } catch (error) {
      log.warn({ err: error, metric: what }, 'metrics: could not read a gauge');
    }
  };

  new Gauge({
    name: 'kith_live_streams',
    help: 'Live event streams (GET /api/events) open on this process',
    registers,
    collect() {
      this.set(eventStreamsOf(ctx)?.size ?? 0);
    },
  });

  new Gauge({
    name: 'kith_jobs',
    help: 'Background jobs by name and state: queued (waiting, due or delayed), running, failed (given up, kept 30 days)',
    labelNames: ['job', 'state'],
    registers,
    async collect() {
      this.reset();
      await guarded('kith_jobs', async () => {
        for (const row of await jobCounts()) {
          if ((JOB_STATES as readonly string[]).includes(row.status))
            this.set({ job: row.name, state: row.status }, row.count);
        }
      });
    },
  });

  new Gauge({
    name: 'kith_mail_queue',
    help: 'E-mails waiting to be sent (pending: queued or being sent) or given up (failed)',
    labelNames: ['state'],
    registers,
    async collect() {
      this.reset();
      await guarded('kith_mail_queue', async () => {
        const rows = (await jobCounts()).filter((row) => row.name === 'send-mail');
        const count = (...states: string[]) =>
          rows.filter((row) => states.includes(row.status)).reduce((sum, row) => sum + row.count, 0);
        this.set({ state: 'pending' }, count('queued', 'running'));
        this.set({ state: 'failed' }, count('failed'));
      });
    },
  });

  new Gauge({
    name: 'kith_database_size_bytes',
    help: 'Size of the database: the SQLite file and its WAL, or PostgreSQL pg_database_size',
    registers,
    async collect() {
      await guarded('kith_database_size_bytes', async () => this.set(await databaseSize()));
    },
  });

  new Gauge({
    name: 'kith_files',
    help: 'Files stored (uploads and link preview images; thumbnails and crops not counted)',
    registers,
    async collect() {
      await guarded('kith_files', async () => this.set((await files()).count));
    },
  });

  new Gauge({
    name: 'kith_files_bytes',
    help: 'Bytes of the files stored (originals as kept after processing)',
    registers,
    async collect() {
      await guarded('kith_files_bytes', async () => this.set((await files()).bytes));
    },
  });
}
