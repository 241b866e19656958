/**
 * The benchmark data generator (issue 7):
 *
 *   node bench/seed.ts --scale small|full|x10 [--seed N] [--db sqlite|postgres] [--out DIR]
 *
 * Builds a fresh data folder (and, for PostgreSQL, a fresh database `kith_bench_<scale>`) through
 * the server's own configuration loader, migrations and context, writes deterministic data in bulk
 * with exactly the rows the API would have left, and ends with `<out>/manifest.json` for the load
 * runner. The same seed gives the same rows; only the password hash (argon2 salts) and the sealed
 * API keys (AES-GCM nonces) differ between runs, because the server's own functions make them.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Selectable } from 'kysely';
import { loadConfig } from '../server/dist/config.js';
import type { AppContext } from '../server/dist/context.js';
import type { GroupsTable, MembershipsTable, UsersTable } from '../server/dist/db/schema.js';
import { apiKeyHash } from '../server/dist/features/auth/api-keys.js';
import { hashPassword } from '../server/dist/lib/passwords.js';
import { createContext } from '../server/dist/setup.js';
import { openSeedDb, recreatePostgresDatabase, type SeedDb } from './lib/db.ts';
import type { Manifest, ManifestUser } from './lib/manifest.ts';
import { planMessages } from './lib/plan-messages.ts';
import { planPeople, type PeoplePlan, type UserPlan } from './lib/plan-people.ts';
import { Random } from './lib/prng.ts';
import { DATA_NOW, isScaleName, MANIFEST_USERS, SCALES, type ScaleName } from './lib/scale.ts';
import { chooseSearchTerms } from './lib/search-words.ts';
import { planBookmarks, writeBookmarks } from './lib/seed-bookmarks.ts';
import { writeFiles } from './lib/seed-files.ts';
import { writeMessages } from './lib/seed-messages.ts';
import { writeNotifications } from './lib/seed-notifications.ts';
import { buildHashtags, buildVocabularies } from './lib/words.ts';

const PASSWORD = 'bench-password';
/** The PostgreSQL server to seed; trust authentication as the superuser, like the test setup. */
const POSTGRES_SERVER = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
/** Marks a folder as the generator's, so `--out` never wipes a folder it did not make. */
const MARKER = '.kith-bench';

interface Options {
  scale: ScaleName;
  seed: number;
  db: 'sqlite' | 'postgres';
  out: string;
}

function usage(problem: string): never {
  process.stderr.write(
    `${problem}\nUsage: node bench/seed.ts --scale small|full|x10 [--seed N] [--db sqlite|postgres] [--out DIR]\n`,
  );
  process.exit(2);
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string' },
      seed: { type: 'string', default: '1' },
      db: { type: 'string', default: 'sqlite' },
      out: { type: 'string' },
    },
  });
  const scale = values.scale;
  if (!isScaleName(scale)) usage('--scale must be small, full or x10');
  const db = values.db;
  if (db !== 'sqlite' && db !== 'postgres') usage('--db must be sqlite or postgres');
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) usage('--seed must be a whole number ≥ 0');
  const out = path.resolve(values.out ?? path.join(import.meta.dirname, 'data', `${db}-${scale}`));
  return { scale, seed, db, out };
}

/** Empties the output folder, refusing one that holds anything but an earlier run's data. */
function freshFolder(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(path.join(dir, MARKER))) {
    throw new Error(`${dir} is not empty and was not made by the generator; choose another --out`);
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, MARKER), 'Made by bench/seed.ts; deleted and rebuilt by every run.\n');
}

/** Times each phase, printing as it goes. */
class Phases {
  readonly seconds: Record<string, number> = {};
  private readonly started = performance.now();

  async run<T>(name: string, work: () => Promise<T> | T): Promise<T> {
    const start = performance.now();
    const result = await work();
    const seconds = Math.round((performance.now() - start) / 10) / 100;
    this.seconds[name] = seconds;
    process.stdout.write(`[seed] ${name.padEnd(14)} ${seconds.toFixed(2).padStart(8)} s\n`);
    return result;
  }

  finish(): Record<string, number> {
    this.seconds.total = Math.round((performance.now() - this.started) / 10) / 100;
    return this.seconds;
  }
}

async function writeUsers(ctx: AppContext, seedDb: SeedDb, people: PeoplePlan): Promise<void> {
  // One argon2 hash for everyone: hashing 10,000 times would take minutes and prove nothing.
  const passwordHash = await hashPassword(PASSWORD);
  const rows: Selectable<UsersTable>[] = people.users.map((u) => ({
    id: u.id,
    login: u.login,
    name: u.name,
    password_hash: passwordHash,
    // Stored as newApiKey stores a key (src/features/auth/api-keys.ts): its hash, and the key sealed.
    api_key_hash: apiKeyHash(u.apiKey),
    api_key_enc: ctx.secretBox.seal(u.apiKey),
    api_key_version: 1,
    avatar_id: null,
    default_group_id: people.groups[u.groups[0] ?? -1]?.id ?? null,
    notification_emails: ctx.config.defaultNotificationEmails,
    lang: null,
    theme: null,
    mention_emails: null,
    push_notifications: null,
    quiet_hours: null,
    time_zone: null,
    push_cursor: null,
    default_page: null,
    created_at: u.createdAt,
    last_activity_date: u.lastActivity,
    // Counted by the triggers of migration 0021 as the seed's files are written.
    storage_bytes: 0,
    storage_reserved: 0,
    disabled_at: null,
    notifications_read_until: null,
  }));
  await seedDb.transaction((tx) => seedDb.insert(tx, 'users', rows));
}

async function writeGroups(seedDb: SeedDb, people: PeoplePlan): Promise<number> {
  const groups: Selectable<GroupsTable>[] = people.groups.map((g) => ({
    id: g.id,
    name: g.name,
    secret_key: g.secretKey,
    created_at: g.createdAt,
    last_activity_date: g.lastActivity,
    emptied_at: null,
    // The triggers of migrations 0009 and 0030 count the messages as they are inserted.
    front_count: 0,
    messages_posted: 0,
  }));
  const memberships: MembershipsTable[] = people.groups
    .flatMap((g) =>
      g.members.map((user, k) => ({
        group_id: g.id,
        user_id: (people.users[user] as UserPlan).id,
        joined_at: g.joinedAt[k] as number,
      })),
    )
    .sort((a, b) => a.joined_at - b.joined_at);
  await seedDb.transaction(async (tx) => {
    await seedDb.insert(tx, 'groups', groups);
    await seedDb.insert(tx, 'memberships', memberships);
  });
  return memberships.length;
}

async function main(): Promise<void> {
  const options = readOptions();
  const scale = SCALES[options.scale];
  const phases = new Phases();
  process.stdout.write(`[seed] ${options.scale} data, seed ${options.seed}, ${options.db}, into ${options.out}\n`);

  const { ctx, seedDb, databaseUrl } = await phases.run('setup', async () => {
    freshFolder(options.out);
    // The server secret is drawn from the seed too, so signed media URLs are the same on every run.
    const secret = new Random(options.seed, 'server-secret').token();
    writeFileSync(path.join(options.out, 'secret.key'), `${secret}\n`, { mode: 0o600 });
    let url = `sqlite:${path.join(options.out, 'kith.db')}`;
    if (options.db === 'postgres') {
      const name = `kith_bench_${options.scale}`;
      await recreatePostgresDatabase(`${POSTGRES_SERVER}/postgres`, name);
      url = `${POSTGRES_SERVER}/${name}`;
    }
    const config = loadConfig({ DATA_DIR: options.out, DATABASE_URL: url, LOG_LEVEL: 'warn' });
    const db = openSeedDb(config.database);
    return { ctx: await createContext(config, { db: db.db }), seedDb: db, databaseUrl: url };
  });

  const { people, plan, bookmarks, vocabularies, hashtags } = await phases.run('plan', () => {
    const people = planPeople(options.seed, scale);
    const plan = planMessages(options.seed, scale, people);
    const big = people.groups[0];
    if (big === undefined || big.members.length < 2) throw new Error('The big group needs members');
    const bookmarks = planBookmarks(options.seed, people, plan, big.members[1] as number);
    return { people, plan, bookmarks, vocabularies: buildVocabularies(options.seed), hashtags: buildHashtags() };
  });
  const big = people.groups[0] as PeoplePlan['groups'][number];
  const notificationsUser = big.members[0] as number;
  const bookmarksUser = big.members[1] as number;

  await phases.run('users', () => writeUsers(ctx, seedDb, people));
  const memberships = await phases.run('groups', () => writeGroups(seedDb, people));
  const files = await phases.run('files', () => writeFiles(ctx, seedDb, options.seed, people, plan));
  const written = await phases.run('messages', () =>
    writeMessages(ctx, seedDb, options.seed, people, plan, files.fileOf, vocabularies, hashtags),
  );
  const notifications = await phases.run('notifications', () =>
    writeNotifications(seedDb, options.seed, people, plan, written.threadTitles, notificationsUser),
  );
  await phases.run('bookmarks', () => writeBookmarks(seedDb, bookmarks));
  const search = await phases.run('searchTerms', () => chooseSearchTerms(ctx, big.id, written.stats));
  await phases.run('finish', () => seedDb.finish());

  const person = (index: number): ManifestUser => {
    const u = people.users[index] as UserPlan;
    return { id: u.id, login: u.login, apiKey: u.apiKey };
  };
  const manifest: Manifest = {
    scale: options.scale,
    seed: options.seed,
    db: options.db,
    dataDir: options.out,
    databaseUrl,
    dataNow: DATA_NOW / 1000,
    password: PASSWORD,
    seedSeconds: phases.finish(),
    counts: {
      users: people.users.length,
      groups: people.groups.length,
      messages: plan.count,
      comments: people.groups.reduce((sum, g) => sum + g.replies, 0),
      notifications: notifications.total,
      bookmarks: bookmarks.rows.length,
      files: files.fileOf.size,
      memberships,
    },
    users: people.users.slice(0, MANIFEST_USERS).map((u) => person(u.index)),
    bigGroup: { id: big.id, name: big.name, messages: big.messages, members: big.members.map(person) },
    messageWith20Comments: { id: plan.ids[plan.threadPost] as string },
    publicToken: plan.publicToken,
    thumbnailFileId: files.firstFileId,
    notificationsUser: { ...person(notificationsUser), count: notifications.perUser[notificationsUser] as number },
    bookmarksUser: { ...person(bookmarksUser), count: bookmarks.perUser[bookmarksUser] as number },
    search,
  };
  writeFileSync(path.join(options.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(
    `[seed] done in ${manifest.seedSeconds.total} s: ${JSON.stringify(manifest.counts)}\n` +
      `[seed] search: ${JSON.stringify({ ...search, groupId: undefined })}\n` +
      `[seed] manifest: ${path.join(options.out, 'manifest.json')}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`Seeding failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
