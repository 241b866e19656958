import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  isValidLangCode,
  NOTIFICATION_EMAIL_FREQUENCIES,
  type NotificationEmailFrequency,
  type UploadKind,
} from '@kith/common';

/**
 * Typed configuration, read once from the environment at start-up. Every variable is documented
 * here and again in `.env.example`; `loadConfig` refuses to start with a list of every problem.
 */
export interface Config {
  /** `PORT`: TCP port of the HTTP server (default 8080). */
  port: number;
  /** `HOST`: address to listen on (default `0.0.0.0`, every IPv4 interface). */
  host: string;
  /** `DATA_DIR`: folder for the SQLite database, files and the mail outbox (default `./data`). */
  dataDir: string;
  /** `DATABASE_URL`: `postgres://…` for PostgreSQL; absent means SQLite at `<DATA_DIR>/kith.db`. */
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  /**
   * `REDIS_URL`: `redis://…` or `rediss://…`, the store several server processes share (throttle
   * counts so far; docs/scale-out.md); absent means everything stays in this process.
   */
  redisUrl: string | null;
  /**
   * `REDIS_KEY_PREFIX`: what every Redis key of this instance starts with (default `kith`), so
   * several instances, or test runs, can share one Redis.
   */
  redisPrefix: string;
  /**
   * `S3_BUCKET` and the other `S3_*` variables: keep file bytes in a bucket of an S3-compatible
   * store, which every server process shares; null (no `S3_BUCKET`) means `<DATA_DIR>/files`.
   */
  s3: S3Config | null;
  /**
   * `JOB_LEASE_SECONDS`: how long a background job claimed by a process stays its own without a
   * renewal (renewed every third of it while it runs; default 60). A killed worker's jobs go back to
   * the queue once it expires, so a shorter one restarts them sooner, but a process that stalls for
   * two thirds of it may see a job taken over and run twice.
   */
  jobLeaseMs: number;
  /** `BASE_PATH`: sub-path the app is served under, e.g. `/family` (default: the site root). Normalized to `''` or `/x`. */
  basePath: string;
  /** `PUBLIC_URL`: the address people use, written into e-mails and links; includes the base path. */
  publicUrl: string;
  /** `SMTP_URL`: `smtp://user:pass@host:port` or `smtps://…`; absent means mails go to `<DATA_DIR>/outbox`. */
  smtpUrl: string | null;
  /** `SMTP_REQUIRE_TLS`: with `smtp://`, refuse to send unless the server upgrades with STARTTLS (default false). */
  smtpRequireTls: boolean;
  /** `SMTP_TLS_INSECURE`: accept a self-signed or otherwise unverifiable SMTP certificate (default false). */
  smtpTlsInsecure: boolean;
  /** `MAIL_FROM`: sender address of e-mails (default `Kith <kith@localhost>`). */
  mailFrom: string;
  /** `TIME_ZONE`: IANA zone of the digest schedule, e.g. `Europe/Paris` (default: the system's, from `TZ`). */
  timeZone: string;
  /** `ALLOW_EMAIL`: send e-mails at all (default true). When false, password reset answers 503. */
  allowEmail: boolean;
  /**
   * `IMMEDIATE_MAIL_DELAY_SECONDS`: how long after the first new post or comment the mail of a user
   * on `immediately` goes out (default 120, 0 to 3600); what arrives meanwhile joins that one mail.
   */
  immediateMailDelayMs: number;
  /** `UPLOAD_IMAGE`, `UPLOAD_VIDEO`, `UPLOAD_AUDIO`, `UPLOAD_PDF`: which upload kinds are allowed (default all). */
  upload: Record<UploadKind, boolean>;
  /** `UPLOAD_MAX_IMAGE_MB`, `UPLOAD_MAX_VIDEO_MB`, `UPLOAD_MAX_AUDIO_MB`, `UPLOAD_MAX_PDF_MB`: size limits. */
  uploadMaxBytes: Record<UploadKind, number>;
  /**
   * `QUOTA_USER_MB`, `QUOTA_INSTANCE_MB`: how many bytes of stored uploads one user, and the whole
   * instance, may hold (unset: no limit). Counted on the stored files, not thumbnails (docs/operations.md).
   */
  quota: { userBytes: number | null; instanceBytes: number | null };
  /** `DEFAULT_LANG`: language of the interface and e-mails when a user has none (default `en_US`). */
  defaultLang: string;
  /**
   * `LANG_FROM_BROWSER`: let a visitor's browser languages (navigator.languages, what it sends as
   * Accept-Language) choose the sign-in pages' language before `DEFAULT_LANG` (default false).
   */
  langFromBrowser: boolean;
  /** `DEFAULT_NOTIFICATION_EMAILS`: digest frequency given to new accounts (default `none`). */
  defaultNotificationEmails: NotificationEmailFrequency;
  /** `SHOW_INVITATION_LINKS`: show groups' invitation links (default true). */
  showInvitationLinks: boolean;
  /** `PUBLIC_LINKS`: allow public links to messages (default true). */
  publicLinks: boolean;
  /** `REACTIONS_ENABLED`: members may react to messages with an emoji (default true; issue 20). */
  reactions: boolean;
  /** `TRUSTED_PROXIES`: comma-separated addresses or CIDR ranges whose `X-Forwarded-For` is believed. */
  trustedProxies: string[];
  /** `CORS_ORIGINS`: comma-separated origins allowed to call the API from another site (default none). */
  corsOrigins: string[];
  /** `SECRET_KEY`: server secret (≥ 32 characters) for signatures and key encryption; generated into `<DATA_DIR>/secret.key` when absent. */
  secretKey: string;
  /** `LOG_LEVEL`: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` (default `info`). */
  logLevel: string;
  /** `WEB_DIST`: folder of the built web client (default `web/dist` of this checkout). */
  webDist: string;
  /** `API_DOCS`: serve `/api/openapi.json` and the `/api/docs` page (default true). */
  apiDocs: boolean;
  /**
   * `METRICS_TOKEN`: the bearer token a Prometheus scraper sends to `GET <BASE_PATH>/metrics`, or null
   * (the default): the endpoint then answers 404 and no metric is kept.
   */
  metricsToken: string | null;
  /**
   * `LINK_PREVIEWS`: fetch previews of links posted in messages from the web (default true). When
   * false, `GET /api/links/by_url` answers 403 and messages show no link cards: nothing is fetched.
   */
  linkPreviews: boolean;
  /**
   * `LINK_PREVIEW_ALLOW_LOOPBACK`: TEST-ONLY (default false). When true, link previews may fetch from
   * loopback addresses (127.0.0.0/8, ::1) on any port, so tests can serve pages from 127.0.0.1. Never
   * set it on a real instance: it lets any user make the server request its own local services.
   */
  linkPreviewAllowLoopback: boolean;
  /** Web Push (issue 21, docs/api §11.9): the PUSH_* and VAPID_* variables. */
  push: PushConfig;
  /** Reply by e-mail (issue 21, docs/mail-replies.md): null when `REPLY_EMAIL` is unset. */
  mailReplies: MailRepliesConfig | null;
  /** Scheduled backups (issue 22, docs/operations.md): null when `BACKUP_DIR` is unset. */
  backup: BackupConfig | null;
}

/** When scheduled backups run (`BACKUP_SCHEDULE`). */
export type BackupSchedule = { kind: 'daily'; hour: number; minute: number } | { kind: 'interval'; hours: number };

/** Scheduled backups (`Config.backup`). */
export interface BackupConfig {
  /** `BACKUP_DIR`: the folder backups are written to (one sub-folder each), also `backup`'s default. */
  dir: string;
  /**
   * `BACKUP_SCHEDULE`: `HH:MM`, every day at that time of `TIME_ZONE` (default `03:00`), or `<N>h`,
   * every N hours (1 to 168, counted from midnight UTC).
   */
  schedule: BackupSchedule;
  /** `BACKUP_KEEP`: how many verified backups to keep (default 7); older ones are deleted, never the newest. */
  keep: number;
}

/** Web Push settings (`Config.push`). */
export interface PushConfig {
  /** `PUSH_ENABLED` (default true): devices may subscribe and notifications are pushed; `push` in /api/info. */
  enabled: boolean;
  /**
   * `VAPID_PUBLIC_KEY` and `VAPID_PRIVATE_KEY` (base64url, given together), or null: the keys are
   * then generated once and kept in the database (features/push/vapid.ts).
   */
  vapidKeys: { publicKey: string; privateKey: string } | null;
  /** `VAPID_SUBJECT`: a mailto: or https: contact for push services (default from PUBLIC_URL or MAIL_FROM). */
  subject: string;
  /**
   * `PUSH_ALLOW_LOOPBACK`: TEST-ONLY (default false). Subscriptions may name loopback addresses, over
   * http too, so tests can run a push service on 127.0.0.1. Never set it on a real instance.
   */
  allowLoopback: boolean;
}

/** Reply by e-mail (`Config.mailReplies`). */
export interface MailRepliesConfig {
  /**
   * `REPLY_EMAIL`: the address replies go to, e.g. `reply@kith.example.org`. Each notification mail
   * about a message carries `reply+<token>@kith.example.org` as its Reply-To, so the mail server
   * must deliver the `+` addresses of this one to Kith (recipient delimiter `+`).
   */
  localPart: string;
  domain: string;
  /** `REPLY_TOKEN_DAYS`: how long a reply address keeps working after the last mail that gave it (default 30). */
  tokenTtlMs: number;
  /** `REPLY_MAX_MB`: the largest reply mail taken in, photos included (default 25). */
  maxBytes: number;
  /**
   * `MAIL_LISTENER_PORT`: the port of the SMTP or LMTP listener the local mail server hands replies
   * to; null (unset) means no listener (the pipe command `receive-mail` still works).
   * `MAIL_LISTENER_HOST`: its address (default `127.0.0.1`: the listener has no authentication, keep
   * it off the network). `MAIL_LISTENER_PROTOCOL`: `smtp` (default) or `lmtp`.
   */
  listener: { port: number; host: string; protocol: 'smtp' | 'lmtp' } | null;
}

/** Where file bytes go in scale-out mode (`Config.s3`). */
export interface S3Config {
  /** `S3_ENDPOINT`: the store's http(s) URL, e.g. `http://minio:9000`; null (absent) means AWS itself. */
  endpoint: string | null;
  /** `S3_BUCKET`: the bucket, created beforehand; Kith uses it whole. */
  bucket: string;
  /** `S3_REGION`: the bucket's region (default `us-east-1`, which most other stores accept). */
  region: string;
  /**
   * `S3_ACCESS_KEY_ID` and `S3_SECRET_ACCESS_KEY`, given together; null means the AWS SDK finds
   * credentials itself (`AWS_*` variables, an instance or pod role).
   */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** `S3_FORCE_PATH_STYLE`: address the bucket as `<endpoint>/<bucket>`, not `<bucket>.<host>` (default false). */
  forcePathStyle: boolean;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const MIB = 1024 * 1024;
/** The largest object S3 copies in one request; S3FileStore.move copies uploads that size at most. */
const S3_MAX_COPY_MB = 5 * 1024;
const DEFAULT_UPLOAD_MB: Record<UploadKind, number> = { image: 50, video: 2048, audio: 500, pdf: 100 };

type Env = Record<string, string | undefined>;

/** Reads and checks the whole configuration; throws `ConfigError` listing every problem. */
export function loadConfig(env: Env = process.env, options: { repoRoot?: string } = {}): Config {
  const problems: string[] = [];
  const repoRoot = options.repoRoot ?? defaultRepoRoot();
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };

  const bool = (name: string, fallback: boolean): boolean => {
    const value = read(name);
    if (value === undefined) return fallback;
    if (/^(1|true|yes|on)$/i.test(value)) return true;
    if (/^(0|false|no|off)$/i.test(value)) return false;
    problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  };

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const value = read(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return n;
  };

  const port = int('PORT', 8080, 0, 65535);
  const host = read('HOST') ?? '0.0.0.0';
  const dataDir = path.resolve(repoRoot, read('DATA_DIR') ?? 'data');

  let database: Config['database'] = { kind: 'sqlite', file: path.join(dataDir, 'kith.db') };
  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl !== undefined) {
    if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
      database = { kind: 'postgres', url: databaseUrl };
    } else if (databaseUrl.startsWith('sqlite:')) {
      const file = databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
      if (file === '') problems.push('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/kith.db');
      database = { kind: 'sqlite', file: file === ':memory:' ? file : path.resolve(repoRoot, file) };
    } else {
      problems.push('DATABASE_URL must start with postgres:// (or sqlite: for a SQLite file)');
    }
  }

  let basePath = read('BASE_PATH') ?? '';
  basePath = basePath.replace(/\/+$/, '');
  if (basePath !== '' && !basePath.startsWith('/')) basePath = `/${basePath}`;
  if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(basePath)) {
    problems.push(`BASE_PATH must be a path such as /family (got "${read('BASE_PATH') ?? ''}")`);
    basePath = '';
  }

  let publicUrl = read('PUBLIC_URL') ?? `http://localhost:${port}${basePath}`;
  try {
    const url = new URL(publicUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    publicUrl = publicUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`PUBLIC_URL must be an http(s) URL such as https://example.org/family (got "${publicUrl}")`);
  }

  const smtpUrl = read('SMTP_URL') ?? null;
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) {
    problems.push('SMTP_URL must start with smtp:// or smtps://');
  }

  const timeZone = read('TIME_ZONE') ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    problems.push(`TIME_ZONE must be a time zone name such as Europe/Paris (got "${timeZone}")`);
  }

  const upload = {
    image: bool('UPLOAD_IMAGE', true),
    video: bool('UPLOAD_VIDEO', true),
    audio: bool('UPLOAD_AUDIO', true),
    pdf: bool('UPLOAD_PDF', true),
  };
  const quotaMb = (name: string): number | null => (read(name) === undefined ? null : int(name, 0, 1, 1024 ** 3) * MIB);
  const quota = { userBytes: quotaMb('QUOTA_USER_MB'), instanceBytes: quotaMb('QUOTA_INSTANCE_MB') };

  const uploadMaxBytes = {
    image: int('UPLOAD_MAX_IMAGE_MB', DEFAULT_UPLOAD_MB.image, 1, 1024 * 1024) * MIB,
    video: int('UPLOAD_MAX_VIDEO_MB', DEFAULT_UPLOAD_MB.video, 1, 1024 * 1024) * MIB,
    audio: int('UPLOAD_MAX_AUDIO_MB', DEFAULT_UPLOAD_MB.audio, 1, 1024 * 1024) * MIB,
    pdf: int('UPLOAD_MAX_PDF_MB', DEFAULT_UPLOAD_MB.pdf, 1, 1024 * 1024) * MIB,
  };

  const defaultLang = read('DEFAULT_LANG') ?? 'en_US';
  if (!isValidLangCode(defaultLang))
    problems.push(`DEFAULT_LANG must be a language code such as fr_FR (got "${defaultLang}")`);

  const langFromBrowser = bool('LANG_FROM_BROWSER', false);
  const redisUrl = read('REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl))
    problems.push('REDIS_URL must start with redis:// or rediss://');
  const redisPrefix = read('REDIS_KEY_PREFIX') ?? 'kith';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(redisPrefix))
    problems.push('REDIS_KEY_PREFIX must be 1 to 64 letters, digits, dots, dashes or underscores');

  const s3 = readS3(read, bool, problems);
  // At least 5 s: renewals come every third of the lease, and under 2 s apart a busy process would
  // miss some and lose jobs it is still running.
  const jobLeaseMs = int('JOB_LEASE_SECONDS', 60, 5, 24 * 60 * 60) * 1000;
  const immediateMailDelayMs = int('IMMEDIATE_MAIL_DELAY_SECONDS', 120, 0, 60 * 60) * 1000;
  if (s3 !== null) {
    for (const kind of Object.keys(uploadMaxBytes) as UploadKind[]) {
      if (uploadMaxBytes[kind] > S3_MAX_COPY_MB * MIB) {
        problems.push(
          `UPLOAD_MAX_${kind.toUpperCase()}_MB must be at most ${S3_MAX_COPY_MB} with S3_BUCKET (S3 copies at most 5 GiB at once)`,
        );
      }
    }
  }

  const frequency = read('DEFAULT_NOTIFICATION_EMAILS') ?? 'none';
  if (!(NOTIFICATION_EMAIL_FREQUENCIES as readonly string[]).includes(frequency)) {
    problems.push(`DEFAULT_NOTIFICATION_EMAILS must be one of ${NOTIFICATION_EMAIL_FREQUENCIES.join(', ')}`);
  }

  const list = (name: string): string[] =>
    (read(name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  const trustedProxies = list('TRUSTED_PROXIES');
  const corsOrigins = list('CORS_ORIGINS');
  for (const origin of corsOrigins) {
    if (!/^https?:\/\/[^/]+$/.test(origin))
      problems.push(`CORS_ORIGINS entry "${origin}" must look like https://host[:port]`);
  }

  const logLevel = read('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  let secretKey = read('SECRET_KEY') ?? '';
  if (secretKey !== '' && secretKey.length < 32) problems.push('SECRET_KEY must be at least 32 characters');

  const webDist = path.resolve(repoRoot, read('WEB_DIST') ?? 'web/dist');

  const allowEmail = bool('ALLOW_EMAIL', true);
  const smtpRequireTls = bool('SMTP_REQUIRE_TLS', false);
  const smtpTlsInsecure = bool('SMTP_TLS_INSECURE', false);
  const showInvitationLinks = bool('SHOW_INVITATION_LINKS', true);
  const publicLinks = bool('PUBLIC_LINKS', true);
  const reactions = bool('REACTIONS_ENABLED', true);
  const apiDocs = bool('API_DOCS', true);
  // A scraper's credential: long enough not to be guessed, and only characters a header carries as is.
  const metricsToken = read('METRICS_TOKEN') ?? null;
  if (metricsToken !== null && !/^[\x21-\x7e]{32,256}$/.test(metricsToken))
    problems.push(
      'METRICS_TOKEN must be 32 to 256 visible ASCII characters without spaces (e.g. openssl rand -hex 32)',
    );
  const linkPreviews = bool('LINK_PREVIEWS', true);
  const linkPreviewAllowLoopback = bool('LINK_PREVIEW_ALLOW_LOOPBACK', false);
  const push = readPush(read, bool, problems, publicUrl, read('MAIL_FROM'));
  const mailReplies = readMailReplies(read, int, problems);
  const backup = readBackup(read, int, problems, repoRoot);

  if (problems.length > 0) throw new ConfigError(problems);

  if (secretKey === '') secretKey = readOrCreateSecret(dataDir);

  return {
    port,
    host,
    dataDir,
    database,
    basePath,
    publicUrl,
    smtpUrl,
    smtpRequireTls,
    smtpTlsInsecure,
    mailFrom: read('MAIL_FROM') ?? 'Kith <kith@localhost>',
    timeZone,
    allowEmail,
    immediateMailDelayMs,
    upload,
    uploadMaxBytes,
    quota,
    redisUrl,
    redisPrefix,
    s3,
    jobLeaseMs,
    defaultLang,
    langFromBrowser,
    defaultNotificationEmails: frequency as NotificationEmailFrequency,
    showInvitationLinks,
    publicLinks,
    reactions,
    trustedProxies,
    corsOrigins,
    secretKey,
    logLevel,
    webDist,
    apiDocs,
    metricsToken,
    linkPreviews,
    linkPreviewAllowLoopback,
    push,
    mailReplies,
    backup,
  };
}

/** Scheduled backups, or null when `BACKUP_DIR` is absent (the other variables are then not checked). */
function readBackup(
  read: (name: string) => string | undefined,
  int: (name: string, fallback: number, min: number, max: number) => number,
  problems: string[],
  repoRoot: string,
): BackupConfig | null {
  const dir = read('BACKUP_DIR');
  if (dir === undefined) return null;
  const keep = int('BACKUP_KEEP', 7, 1, 1000);
  const text = read('BACKUP_SCHEDULE') ?? '03:00';
  let schedule: BackupSchedule = { kind: 'daily', hour: 3, minute: 0 };
  const daily = /^(\d{1,2}):(\d{2})$/.exec(text);
  const interval = /^(\d{1,3})h$/.exec(text);
  if (daily !== null && Number(daily[1]) < 24 && Number(daily[2]) < 60) {
    schedule = { kind: 'daily', hour: Number(daily[1]), minute: Number(daily[2]) };
  } else if (interval !== null && Number(interval[1]) >= 1 && Number(interval[1]) <= 168) {
    schedule = { kind: 'interval', hours: Number(interval[1]) };
  } else {
    problems.push(
      `BACKUP_SCHEDULE must be a time of day such as 03:00 (daily) or a number of hours such as 6h (1h to 168h) (got "${text}")`,
    );
  }
  return { dir: path.resolve(repoRoot, dir), schedule, keep };
}

/**
 * The Web Push settings. Given VAPID keys must decode to a P-256 key pair's sizes (65-byte
 * uncompressed public point, 32-byte private scalar); the subject must be mailto: or https:, as
 * push services require. Without VAPID_SUBJECT an https PUBLIC_URL is the contact, else MAIL_FROM's
 * address.
 */
function readPush(
  read: (name: string) => string | undefined,
  bool: (name: string, fallback: boolean) => boolean,
  problems: string[],
  publicUrl: string,
  mailFrom: string | undefined,
): PushConfig {
  const publicKey = read('VAPID_PUBLIC_KEY');
  const privateKey = read('VAPID_PRIVATE_KEY');
  let vapidKeys: PushConfig['vapidKeys'] = null;
  if ((publicKey === undefined) !== (privateKey === undefined)) {
    problems.push('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together: set both, or neither to have them generated');
  } else if (publicKey !== undefined && privateKey !== undefined) {
    const decodedLength = (text: string) => (/^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, 'base64url').length : 0);
    if (decodedLength(publicKey) !== 65)
      problems.push('VAPID_PUBLIC_KEY must be a P-256 public key in base64url (65 bytes)');
    if (decodedLength(privateKey) !== 32)
      problems.push('VAPID_PRIVATE_KEY must be a P-256 private key in base64url (32 bytes)');
    vapidKeys = { publicKey, privateKey };
  }
  const fromAddress = /<?([^<>\s]+@[^<>\s]+)>?\s*$/.exec(mailFrom ?? '')?.[1] ?? 'kith@localhost';
  const subject = read('VAPID_SUBJECT') ?? (publicUrl.startsWith('https://') ? publicUrl : `mailto:${fromAddress}`);
  if (!/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(subject)) {
    problems.push(`VAPID_SUBJECT must be a mailto: address or an https: URL (got "${subject}")`);
  }
  return {
    enabled: bool('PUSH_ENABLED', true),
    vapidKeys,
    subject,
    allowLoopback: bool('PUSH_ALLOW_LOOPBACK', false),
  };
}

/**
 * Reply by e-mail, or null when `REPLY_EMAIL` is absent; the listener only with `MAIL_LISTENER_PORT`.
 */
function readMailReplies(
  read: (name: string) => string | undefined,
  int: (name: string, fallback: number, min: number, max: number) => number,
  problems: string[],
): MailRepliesConfig | null {
  const address = read('REPLY_EMAIL');
  // The other variables keep their .env.example values while the feature is off: no problem then.
  if (address === undefined) return null;
  // A plain local part (no `+`: Kith adds `+<token>`) and a domain.
  const match = /^([A-Za-z0-9._-]{1,20})@([A-Za-z0-9.-]+\.[A-Za-z0-9-]+|localhost)$/.exec(address);
  if (match === null) {
    problems.push(`REPLY_EMAIL must be an address such as reply@kith.example.org, without "+" (got "${address}")`);
  }
  const days = int('REPLY_TOKEN_DAYS', 30, 1, 365);
  const maxMb = int('REPLY_MAX_MB', 25, 1, 200);
  const rawPort = read('MAIL_LISTENER_PORT');
  const port = rawPort === undefined ? null : int('MAIL_LISTENER_PORT', 0, 1, 65535);
  const protocol = read('MAIL_LISTENER_PROTOCOL') ?? 'smtp';
  if (protocol !== 'smtp' && protocol !== 'lmtp') {
    problems.push(`MAIL_LISTENER_PROTOCOL must be smtp or lmtp (got "${protocol}")`);
  }
  return {
    localPart: (match?.[1] ?? 'reply').toLowerCase(),
    domain: (match?.[2] ?? 'localhost').toLowerCase(),
    tokenTtlMs: days * 24 * 60 * 60 * 1000,
    maxBytes: maxMb * 1024 * 1024,
    listener:
      port === null
        ? null
        : { port, host: read('MAIL_LISTENER_HOST') ?? '127.0.0.1', protocol: protocol === 'lmtp' ? 'lmtp' : 'smtp' },
  };
}

const S3_VARIABLES = ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE'];

/**
 * The S3 store, or null when `S3_BUCKET` is absent. Problems name the variables, never the secret's value.
 */
function readS3(
  read: (name: string) => string | undefined,
  bool: (name: string, fallback: boolean) => boolean,
  problems: string[],
): S3Config | null {
  const bucket = read('S3_BUCKET');
  if (bucket === undefined) {
    // Half a configuration would silently keep the files on the local disk of each process.
    const stray = S3_VARIABLES.filter((name) => read(name) !== undefined);
    if (stray.length > 0) problems.push(`${stray.join(', ')} ${stray.length > 1 ? 'are' : 'is'} set without S3_BUCKET`);
    return null;
  }
  // S3's naming rule for new buckets, which addressing by host name relies on.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    problems.push(
      `S3_BUCKET must be a bucket name: 3 to 63 lowercase letters, digits, dots or hyphens (got "${bucket}")`,
    );
  }
  const endpoint = read('S3_ENDPOINT') ?? null;
  if (endpoint !== null && !isHttpUrl(endpoint)) {
    problems.push(`S3_ENDPOINT must be an http(s) URL such as http://minio:9000 (got "${endpoint}")`);
  }
  const region = read('S3_REGION') ?? 'us-east-1';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(region)) {
    problems.push(`S3_REGION must be a region name such as eu-west-3 (got "${region}")`);
  }
  const accessKeyId = read('S3_ACCESS_KEY_ID') ?? null;
  const secretAccessKey = read('S3_SECRET_ACCESS_KEY') ?? null;
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    problems.push(
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both, or neither to let the AWS SDK find credentials',
    );
  }
  return { endpoint, bucket, region, accessKeyId, secretAccessKey, forcePathStyle: bool('S3_FORCE_PATH_STYLE', false) };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Loads `<checkout>/.env` into `process.env` when the file exists; variables already set win.
 * Called by the server and the CLI entry points, never by tests.
 */
export function loadDotEnv(repoRoot = defaultRepoRoot()): void {
  const file = path.join(repoRoot, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
}

/** The checkout root: config paths such as `./data` are relative to it, whatever the working directory. */
function defaultRepoRoot(): string {
  // server/dist/config.js or server/src/config.ts → two levels up is the repository root.
  return path.resolve(import.meta.dirname, '..', '..');
}

/**
 * A generated secret survives restarts in the data folder, so signed links and encrypted keys stay
 * valid; operators who run several processes set SECRET_KEY instead.
 */
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process (the CLI next to a starting server) wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
}
