import path from 'node:path';
import { pino } from 'pino';
import { loadConfig, type Config } from '../config.js';
import { createBackup, type BackupMethodChoice, type BackupReport } from '../maintenance/backup/backup.js';
import { restoreBackup, RestoreRefused } from '../maintenance/backup/restore.js';
import { CliError, CliFailure } from './cli-error.js';
import type { CliIo } from './main.js';
import { parseOptions } from './options.js';

// `backup` and `restore` (docs/operations.md, "Backups and restores"). Neither takes the server's
// instance lock: a backup reads beside the running server; a restore locks only its empty target.

/** Exit codes of `restore`: bad input, and a refusal that changed nothing (target not empty, backup not good). */
export const RESTORE_USAGE_EXIT = 2;
export const RESTORE_REFUSED_EXIT = 3;

const METHODS: readonly BackupMethodChoice[] = ['auto', 'pg_dump', 'export'];

/** Refuses options the command does not know, so that a typo is not silently ignored. */
function onlyOptions(options: Map<string, string | true>, known: string[]): void {
  for (const name of options.keys()) {
    if (!known.includes(name))
      throw new CliError(`Unknown option --${name} (options: ${known.map((k) => `--${k}`).join(', ')})`);
  }
}

/** `backup [--to DIR] [--method auto|pg_dump|export]`: the report, or a CliFailure carrying it when verification failed. */
export async function backupCommand(
  config: Config,
  options: Map<string, string | true>,
  io: CliIo,
): Promise<BackupReport> {
  onlyOptions(options, ['to', 'method']);
  const to = options.get('to');
  if (to === true) throw new CliError('--to needs a folder');
  const dir = to === undefined ? config.backup?.dir : path.resolve(to);
  if (dir === undefined) throw new CliError('Where to? Give --to DIR or set BACKUP_DIR');
  const method = options.get('method') ?? 'auto';
  if (method === true || !(METHODS as readonly string[]).includes(method)) {
    throw new CliError(`--method must be one of ${METHODS.join(', ')}`);
  }
  if (method !== 'auto' && config.database.kind !== 'postgres') {
    throw new CliError(
      '--method pg_dump and --method export are for PostgreSQL; SQLite is always copied with VACUUM INTO',
    );
  }
  const report = await createBackup(config, { dir, method: method as BackupMethodChoice });
  // Logged as well as printed, on stderr so that stdout carries only the JSON answer.
  const log = pino({ level: 'info' }, { write: (line: string) => io.stderr(line) });
  if (report.state === 'verified') {
    log.info({ backup: report }, 'backup verified');
    return report;
  }
  log.error({ backup: report }, 'backup failed its verification');
  throw new CliFailure(
    `the backup failed its verification and is kept as ${report.folder} for a look; it will never be restored:\n  ${report.verification.problems.slice(0, 10).join('\n  ')}`,
    report,
  );
}

/** `restore BACKUP_FOLDER [--to DIR|postgres://…]`, with its own exit codes (0, 1 failed, 2 usage, 3 refused). */
export async function restoreCommand(args: string[], io: CliIo): Promise<number> {
  const [folder, ...rest] = args;
  if (folder === undefined || folder.startsWith('--')) {
    io.stderr(
      'kith restore: give the backup folder to restore, e.g. restore /var/backups/kith/kith-backup-2026-11-28T03-00-00-000Z\n',
    );
    return RESTORE_USAGE_EXIT;
  }
  let to: string | undefined;
  let config: Config;
  try {
    const options = parseOptions(rest);
    onlyOptions(options, ['to']);
    const value = options.get('to');
    if (value === true) throw new CliError('--to needs a data folder or a postgres:// URL');
    to = value;
    config = loadConfig(io.env ?? process.env);
  } catch (error) {
    io.stderr(`kith restore: ${(error as Error).message}\n`);
    return RESTORE_USAGE_EXIT;
  }
  try {
    const report = await restoreBackup(config, folder, to);
    io.stdout(`${JSON.stringify(report)}\n`);
    return 0;
  } catch (error) {
    io.stderr(`kith restore: ${(error as Error).message}\n`);
    return error instanceof RestoreRefused ? RESTORE_REFUSED_EXIT : 1;
  }
}
