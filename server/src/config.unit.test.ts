import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configLoader, TEST_SECRET, useTempCheckout } from '../test/config-loader.js';
import { ConfigError, loadConfig, loadDotEnv } from './config.js';

const SECRET = TEST_SECRET;
const MIB = 1024 * 1024;

const checkout = useTempCheckout();
const { load, problemsOf } = configLoader(checkout);

describe('loadConfig defaults', () => {
  it('uses the documented defaults', () => {
    const config = load();
    expect(config.port).toBe(8080);
    expect(config.host).toBe('0.0.0.0');
    expect(config.dataDir).toBe(path.join(checkout(), 'data'));
    expect(config.database).toEqual({ kind: 'sqlite', file: path.join(checkout(), 'data', 'kith.db') });
    expect(config.basePath).toBe('');
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.smtpUrl).toBeNull();
    expect(config.redisUrl).toBeNull();
    expect(config.s3).toBeNull();
    expect(config.jobLeaseMs).toBe(60_000);
    expect(config.langFromBrowser).toBe(false);
    expect(config.mailFrom).toBe('Kith <kith@localhost>');
    expect(config.defaultLang).toBe('en_US');
    expect(config.defaultNotificationEmails).toBe('none');
    expect(config.upload).toEqual({ image: true, video: true, audio: true, pdf: true });
    expect(config.uploadMaxBytes).toEqual({
      image: 50 * MIB,
      video: 2048 * MIB,
      audio: 500 * MIB,
      pdf: 100 * MIB,
    });
    expect(config.allowEmail).toBe(true);
    expect(config.showInvitationLinks).toBe(true);
    expect(config.publicLinks).toBe(true);
    expect(config.trustedProxies).toEqual([]);
    expect(config.corsOrigins).toEqual([]);
    expect(config.logLevel).toBe('info');
    expect(config.secretKey).toBe(SECRET);
    expect(config.webDist).toBe(path.join(checkout(), 'web', 'dist'));
  });

  it('treats empty and blank variables as absent', () => {
    const config = load({ PORT: '', BASE_PATH: '   ', DEFAULT_LANG: '' });
    expect(config.port).toBe(8080);
    expect(config.basePath).toBe('');
    expect(config.defaultLang).toBe('en_US');
  });

  it('puts the SQLite file in DATA_DIR, resolved against the checkout', () => {
    const config = load({ DATA_DIR: 'var/kith' });
    expect(config.dataDir).toBe(path.join(checkout(), 'var', 'kith'));
    expect(config.database).toEqual({ kind: 'sqlite', file: path.join(checkout(), 'var', 'kith', 'kith.db') });
  });

  it('does not write a secret file when SECRET_KEY is given', () => {
    load();
    expect(existsSync(path.join(checkout(), 'data', 'secret.key'))).toBe(false);
  });
});

describe('loadConfig secret', () => {
  it('generates a secret into <DATA_DIR>/secret.key and reuses it on the next load', () => {
    const first = loadConfig({}, { repoRoot: checkout() });
    const file = path.join(checkout(), 'data', 'secret.key');
    expect(existsSync(file)).toBe(true);
    expect(first.secretKey.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secretKey);
    // Only the server's user may read it.
    expect(statSync(file).mode & 0o077).toBe(0);

    const second = loadConfig({}, { repoRoot: checkout() });
    expect(second.secretKey).toBe(first.secretKey);
  });

  it('generates a different secret for another data folder', () => {
    const a = loadConfig({ DATA_DIR: 'a' }, { repoRoot: checkout() });
    const b = loadConfig({ DATA_DIR: 'b' }, { repoRoot: checkout() });
    expect(a.secretKey).not.toBe(b.secretKey);
  });
});

describe('loadConfig values', () => {
  it('reads PORT', () => {
    expect(load({ PORT: '3000' }).port).toBe(3000);
    expect(load({ PORT: '3000' }).publicUrl).toBe('http://localhost:3000');
  });

  it.each(['postgres://kith:pw@db:5432/kith', 'postgresql://kith@localhost/kith'])(
    'DATABASE_URL %s selects PostgreSQL',
    (url) => {
      expect(load({ DATABASE_URL: url }).database).toEqual({ kind: 'postgres', url });
    },
  );

  it('BASE_PATH family/ becomes /family, and the default PUBLIC_URL includes it', () => {
    const config = load({ BASE_PATH: 'family/' });
    expect(config.basePath).toBe('/family');
    expect(config.publicUrl).toBe('http://localhost:8080/family');
  });

  it.each([
    ['/family', '/family'],
    ['/family/', '/family'],
    ['/', ''],
    ['/a/b', '/a/b'],
  ])('BASE_PATH %j becomes %j', (value, expected) => {
    expect(load({ BASE_PATH: value }).basePath).toBe(expected);
  });

  it('removes the trailing slash of PUBLIC_URL', () => {
    expect(load({ PUBLIC_URL: 'https://example.org/family/' }).publicUrl).toBe('https://example.org/family');
    expect(load({ PUBLIC_URL: 'https://example.org/' }).publicUrl).toBe('https://example.org');
    expect(load({ PUBLIC_URL: 'https://example.org' }).publicUrl).toBe('https://example.org');
  });

  it('reads TRUSTED_PROXIES and CORS_ORIGINS as comma-separated lists', () => {
    const config = load({
      TRUSTED_PROXIES: ' 10.0.0.1, 192.168.0.0/16 ,,::1 ',
      CORS_ORIGINS: 'https://app.example.org, http://localhost:5173',
    });
    expect(config.trustedProxies).toEqual(['10.0.0.1', '192.168.0.0/16', '::1']);
    expect(config.corsOrigins).toEqual(['https://app.example.org', 'http://localhost:5173']);
  });

  it('reads booleans, sizes, language, frequency, SMTP and log level', () => {
    const config = load({
      UPLOAD_VIDEO: 'false',
      UPLOAD_AUDIO: 'no',
      UPLOAD_PDF: '0',
      UPLOAD_IMAGE: 'TRUE',
      UPLOAD_MAX_PDF_MB: '7',
      ALLOW_EMAIL: 'off',
      SHOW_INVITATION_LINKS: 'false',
      PUBLIC_LINKS: 'no',
      DEFAULT_LANG: 'fr_FR',
      DEFAULT_NOTIFICATION_EMAILS: 'weekly',
      SMTP_URL: 'smtps://user:pass@mail.example.org:465',
      LOG_LEVEL: 'debug',
      MAIL_FROM: 'Family <family@example.org>',
      SMTP_REQUIRE_TLS: 'yes',
      SMTP_TLS_INSECURE: 'true',
      TIME_ZONE: 'America/Sao_Paulo',
    });
    expect(config.upload).toEqual({ image: true, video: false, audio: false, pdf: false });
    expect(config.uploadMaxBytes.pdf).toBe(7 * MIB);
    expect(config.allowEmail).toBe(false);
    expect(config.showInvitationLinks).toBe(false);
    expect(config.publicLinks).toBe(false);
    expect(config.defaultLang).toBe('fr_FR');
    expect(config.defaultNotificationEmails).toBe('weekly');
    expect(config.smtpUrl).toBe('smtps://user:pass@mail.example.org:465');
    expect(config.logLevel).toBe('debug');
    expect(config.mailFrom).toBe('Family <family@example.org>');
    expect(config.smtpRequireTls).toBe(true);
    expect(config.smtpTlsInsecure).toBe(true);
    expect(config.timeZone).toBe('America/Sao_Paulo');
  });
});

it('takes REDIS_URL with or without TLS', () => {
  expect(load({ REDIS_URL: 'redis://cache:6379/0' }).redisUrl).toBe('redis://cache:6379/0');
  expect(load({ REDIS_URL: 'rediss://cache:6380' }).redisUrl).toBe('rediss://cache:6380');
});

it('reads the storage quotas in MiB, none when unset', () => {
  expect(load().quota).toEqual({ userBytes: null, instanceBytes: null });
  expect(load({ QUOTA_USER_MB: '5120', QUOTA_INSTANCE_MB: ' ' }).quota).toEqual({
    userBytes: 5120 * MIB,
    instanceBytes: null,
  });
  expect(problemsOf({ QUOTA_USER_MB: '0', QUOTA_INSTANCE_MB: '1.5' })).toEqual([
    'QUOTA_USER_MB must be a whole number from 1 to 1073741824 (got "0")',
    'QUOTA_INSTANCE_MB must be a whole number from 1 to 1073741824 (got "1.5")',
  ]);
});

it('reads JOB_LEASE_SECONDS, from 5 s to a day', () => {
  expect(load({ JOB_LEASE_SECONDS: '5' }).jobLeaseMs).toBe(5000);
  expect(problemsOf({ JOB_LEASE_SECONDS: '2' })).toEqual([
    'JOB_LEASE_SECONDS must be a whole number from 5 to 86400 (got "2")',
  ]);
});

it('reads METRICS_TOKEN: off when empty, a long token without spaces when set', () => {
  expect(load().metricsToken).toBeNull();
  expect(load({ METRICS_TOKEN: '  ' }).metricsToken).toBeNull();
  const token = 'a'.repeat(32);
  expect(load({ METRICS_TOKEN: token }).metricsToken).toBe(token);
  const problem = 'METRICS_TOKEN must be 32 to 256 visible ASCII characters without spaces (e.g. openssl rand -hex 32)';
  expect(problemsOf({ METRICS_TOKEN: 'short' })).toEqual([problem]);
  expect(problemsOf({ METRICS_TOKEN: `${token} ${token}` })).toEqual([problem]);
});

describe('loadConfig S3', () => {
  const S3 = {
    S3_ENDPOINT: 'http://minio:9000',
    S3_BUCKET: 'kith-files',
    S3_ACCESS_KEY_ID: 'kith',
    S3_SECRET_ACCESS_KEY: 'not-a-real-secret-9f2c',
  };

  it('reads the bucket, endpoint, keys and path style, with us-east-1 as default region', () => {
    expect(load({ ...S3, S3_FORCE_PATH_STYLE: 'true' }).s3).toEqual({
      endpoint: 'http://minio:9000',
      bucket: 'kith-files',
      region: 'us-east-1',
      accessKeyId: 'kith',
      secretAccessKey: 'not-a-real-secret-9f2c',
      forcePathStyle: true,
    });
    expect(load({ ...S3, S3_REGION: 'eu-west-3' }).s3).toMatchObject({ region: 'eu-west-3', forcePathStyle: false });
  });

  it('means AWS itself without S3_ENDPOINT, and the SDK its own credentials without keys', () => {
    expect(load({ S3_BUCKET: 'kith-files', S3_ENDPOINT: '' }).s3).toEqual({
      endpoint: null,
      bucket: 'kith-files',
      region: 'us-east-1',
      accessKeyId: null,
      secretAccessKey: null,
      forcePathStyle: false,
    });
  });

  it.each([
    [{ S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT must be an http(s) URL'],
    [{ S3_ENDPOINT: 'ftp://minio' }, 'S3_ENDPOINT must be an http(s) URL'],
    [{ S3_BUCKET: 'Kith_Files' }, 'S3_BUCKET must be a bucket name'],
    [{ S3_BUCKET: 'ab' }, 'S3_BUCKET must be a bucket name'],
    [{ S3_BUCKET: `k${'x'.repeat(63)}` }, 'S3_BUCKET must be a bucket name'],
    [{ S3_REGION: 'eu west' }, 'S3_REGION must be a region name'],
    [{ S3_FORCE_PATH_STYLE: 'maybe' }, 'S3_FORCE_PATH_STYLE must be true or false'],
    [{ S3_SECRET_ACCESS_KEY: undefined }, 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together'],
    [{ S3_ACCESS_KEY_ID: '' }, 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together'],
  ])('refuses %j', (change, problem) => {
    const problems = problemsOf({ ...S3, ...change });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });

  it('refuses S3 variables without S3_BUCKET, naming them', () => {
    expect(problemsOf({ ...S3, S3_BUCKET: undefined })).toEqual([
      'S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY are set without S3_BUCKET',
    ]);
    expect(problemsOf({ S3_FORCE_PATH_STYLE: 'true' })).toEqual(['S3_FORCE_PATH_STYLE is set without S3_BUCKET']);
  });

  it('refuses upload limits above what S3 copies at once (5 GiB), only with S3', () => {
    expect(load({ ...S3, UPLOAD_MAX_VIDEO_MB: '5120' }).uploadMaxBytes.video).toBe(5120 * MIB);
    expect(problemsOf({ ...S3, UPLOAD_MAX_VIDEO_MB: '5121', UPLOAD_MAX_PDF_MB: '9000' })).toEqual([
      'UPLOAD_MAX_VIDEO_MB must be at most 5120 with S3_BUCKET (S3 copies at most 5 GiB at once)',
      'UPLOAD_MAX_PDF_MB must be at most 5120 with S3_BUCKET (S3 copies at most 5 GiB at once)',
    ]);
    expect(load({ UPLOAD_MAX_VIDEO_MB: '9000' }).uploadMaxBytes.video).toBe(9000 * MIB);
  });

  it('never writes the secret key into a problem', () => {
    let error: unknown;
    try {
      load({ ...S3, S3_ACCESS_KEY_ID: undefined, S3_BUCKET: 'Bad_Bucket', S3_ENDPOINT: 'nope' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toHaveLength(3);
    expect((error as ConfigError).message).not.toContain(S3.S3_SECRET_ACCESS_KEY);
  });
});

describe('loadConfig refuses bad values with ConfigError', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'mysql://x'],
    ['BASE_PATH', '/a b'],
    ['PUBLIC_URL', 'ftp://x'],
    ['PUBLIC_URL', 'not a url'],
    ['SMTP_URL', 'http://x'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['LANG_FROM_BROWSER', 'sometimes'],
    ['UPLOAD_VIDEO', 'maybe'],
    ['UPLOAD_MAX_IMAGE_MB', '0'],
    ['DEFAULT_LANG', '!!'],
    ['DEFAULT_NOTIFICATION_EMAILS', 'often'],
    ['LOG_LEVEL', 'loud'],
    ['SECRET_KEY', 'short'],
    ['CORS_ORIGINS', 'not-a-url'],
    ['TIME_ZONE', 'Mars/Olympus_Mons'],
    ['SMTP_REQUIRE_TLS', 'sometimes'],
  ])('%s=%j', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(name);
  });

  it.each(['ALLOW_EMAIL', 'SHOW_INVITATION_LINKS', 'PUBLIC_LINKS'])('%s=maybe', (name) => {
    const problems = problemsOf({ [name]: 'maybe' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(name);
  });

  it('lists every problem at once', () => {
    const bad = {
      PORT: 'abc',
      DATABASE_URL: 'mysql://x',
      BASE_PATH: '/a b',
      PUBLIC_URL: 'ftp://x',
      SMTP_URL: 'http://x',
      UPLOAD_VIDEO: 'maybe',
      DEFAULT_LANG: '!!',
      DEFAULT_NOTIFICATION_EMAILS: 'often',
      LOG_LEVEL: 'loud',
      SECRET_KEY: 'short',
      CORS_ORIGINS: 'not-a-url',
    };
    const problems = problemsOf(bad);
    expect(problems).toHaveLength(Object.keys(bad).length);
    for (const name of Object.keys(bad)) {
      expect(
        problems.some((p) => p.includes(name)),
        `${name} in ${JSON.stringify(problems)}`,
      ).toBe(true);
    }
  });

  it('writes every problem into the error message', () => {
    let error: unknown;
    try {
      load({ PORT: 'abc', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { message, name } = error as ConfigError;
    expect(name).toBe('ConfigError');
    expect(message).toContain('PORT');
    expect(message).toContain('LOG_LEVEL');
  });

  it('does not generate a secret when the configuration is refused', () => {
    expect(() => loadConfig({ PORT: 'abc' }, { repoRoot: checkout() })).toThrow(ConfigError);
    expect(existsSync(path.join(checkout(), 'data', 'secret.key'))).toBe(false);
  });
});

describe('loadDotEnv', () => {
  it('loads <checkout>/.env without overriding variables already set', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'kith-dotenv-'));
    writeFileSync(path.join(root, '.env'), 'KITH_DOTENV_NEW=from-file\nKITH_DOTENV_SET=from-file\n');
    process.env.KITH_DOTENV_SET = 'from-env';
    try {
      loadDotEnv(root);
      expect(process.env.KITH_DOTENV_NEW).toBe('from-file');
      expect(process.env.KITH_DOTENV_SET).toBe('from-env');
    } finally {
      delete process.env.KITH_DOTENV_NEW;
      delete process.env.KITH_DOTENV_SET;
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('does nothing without a .env file', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'kith-dotenv-'));
    expect(() => loadDotEnv(root)).not.toThrow();
    rmSync(root, { recursive: true, force: true });
  });
});

describe('reply by e-mail settings (issue 21)', () => {
  it('is off without REPLY_EMAIL, whatever the other variables say', () => {
    expect(load().mailReplies).toBeNull();
    expect(load({ MAIL_LISTENER_PORT: '2525', REPLY_TOKEN_DAYS: '30' }).mailReplies).toBeNull();
  });

  it('reads the address, the defaults and the listener', () => {
    expect(load({ REPLY_EMAIL: 'Reply@Kith.Example.org' }).mailReplies).toEqual({
      localPart: 'reply',
      domain: 'kith.example.org',
      tokenTtlMs: 30 * 24 * 60 * 60 * 1000,
      maxBytes: 25 * MIB,
      listener: null,
    });
    const config = load({
      REPLY_EMAIL: 'reply@kith.example.org',
      REPLY_TOKEN_DAYS: '7',
      REPLY_MAX_MB: '10',
      MAIL_LISTENER_PORT: '2525',
      MAIL_LISTENER_PROTOCOL: 'lmtp',
    });
    expect(config.mailReplies).toMatchObject({
      tokenTtlMs: 7 * 24 * 60 * 60 * 1000,
      maxBytes: 10 * MIB,
      listener: { port: 2525, host: '127.0.0.1', protocol: 'lmtp' },
    });
  });

  it('lists every wrong value', () => {
    expect(
      problemsOf({
        REPLY_EMAIL: 'reply+x@kith.example.org',
        REPLY_TOKEN_DAYS: '0',
        MAIL_LISTENER_PORT: 'smtp',
        MAIL_LISTENER_PROTOCOL: 'pop3',
      }),
    ).toEqual([
      expect.stringContaining('REPLY_EMAIL'),
      expect.stringContaining('REPLY_TOKEN_DAYS'),
      expect.stringContaining('MAIL_LISTENER_PORT'),
      expect.stringContaining('MAIL_LISTENER_PROTOCOL'),
    ]);
  });
});

describe('backup settings (issue 22)', () => {
  it('is off without BACKUP_DIR, whatever the other variables say', () => {
    expect(load().backup).toBeNull();
    expect(load({ BACKUP_SCHEDULE: 'often', BACKUP_KEEP: '0' }).backup).toBeNull();
  });

  it('reads the folder, a daily time or a number of hours, and how many to keep', () => {
    expect(load({ BACKUP_DIR: 'backups' }).backup).toEqual({
      dir: path.join(checkout(), 'backups'),
      schedule: { kind: 'daily', hour: 3, minute: 0 },
      keep: 7,
    });
    expect(load({ BACKUP_DIR: '/srv/b', BACKUP_SCHEDULE: '23:45', BACKUP_KEEP: '30' }).backup).toEqual({
      dir: '/srv/b',
      schedule: { kind: 'daily', hour: 23, minute: 45 },
      keep: 30,
    });
    expect(load({ BACKUP_DIR: '/srv/b', BACKUP_SCHEDULE: '6h' }).backup?.schedule).toEqual({
      kind: 'interval',
      hours: 6,
    });
  });

  it('refuses a schedule or a count it cannot read, naming the variable', () => {
    for (const schedule of ['24:00', '3', '7:5', '0h', '169h', 'daily']) {
      expect(() => load({ BACKUP_DIR: '/srv/b', BACKUP_SCHEDULE: schedule }), schedule).toThrow(
        /BACKUP_SCHEDULE must be a time of day such as 03:00 \(daily\) or a number of hours such as 6h/,
      );
    }
    expect(() => load({ BACKUP_DIR: '/srv/b', BACKUP_KEEP: '0' })).toThrow(
      /BACKUP_KEEP must be a whole number from 1 to 1000/,
    );
  });
});
