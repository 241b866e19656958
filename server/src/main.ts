import { buildApp } from './app.js';
import { ConfigError, loadConfig, loadDotEnv, type Config } from './config.js';
import { firstRunInvitation } from './first-run.js';
import { scheduleHousekeeping } from './maintenance/housekeeping.js';
import { scheduleDigests } from './features/digests/service.js';
import { mediaTools, parentDeathGuard } from './media/tools.js';
import { acquireInstanceLock, InstanceLockedError, type InstanceLock } from './db/instance-lock.js';
import { closeContext, createContext, createLogger } from './setup.js';

/** Entry point: read the configuration, migrate, serve, and stop cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: Config;
  try {
    loadDotEnv();
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee .env.example for every setting.\n`);
      process.exit(1);
    }
    throw error;
  }

  const log = createLogger(config);
  // One server process per set of data until the shared stores of scale-out mode exist; a second
  // one stops here, before migrating or listening (db/instance-lock.ts).
  let lock: InstanceLock;
  try {
    lock = await acquireInstanceLock(config.database);
  } catch (error) {
    if (error instanceof InstanceLockedError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  log.info(
    { database: config.database.kind },
    'single-process mode: a second server on the same data refuses to start',
  );
  const ctx = await createContext(config, { log });
  const app = await buildApp(ctx);
  const stopHousekeeping = scheduleHousekeeping(ctx);
  const stopDigests = scheduleDigests(ctx);
  const tools = mediaTools();
  const missing = Object.entries(tools)
    .filter(([, found]) => !found)
    .map(([name]) => name);
  if (missing.length > 0) log.warn({ missing }, 'media tools not found: the uploads that need them are turned off');
  if (parentDeathGuard().length === 0) {
    log.warn('setpriv (util-linux) cannot tie media tools to this process: if it is killed, a conversion may run on');
  }
  ctx.jobs.start();

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    // A request that hangs must not keep the process alive for ever.
    setTimeout(() => process.exit(1), 10_000).unref();
    stopHousekeeping();
    stopDigests();
    // Running conversions are stopped (ffmpeg killed) and queued again for the next start.
    Promise.all([app.close(), ctx.jobs.stop()])
      .then(() => closeContext(ctx))
      .then(() => lock.release())
      .then(() => {
        log.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error({ err: error }, 'error while shutting down');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  log.info({ url: config.publicUrl, database: config.database.kind }, 'Kith is listening');

  const invitation = await firstRunInvitation(ctx);
  if (invitation !== null) {
    // Printed on the console, not only in the JSON log, so the first person finds it.
    process.stdout.write(
      `\n  Welcome to Kith. No account exists yet.\n  Open this link to create the first account and group:\n\n    ${invitation}\n\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Kith could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
