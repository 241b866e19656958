import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import { s3Env } from '../../../test/s3.js';
import {
  commentsOn,
  composeMail,
  fillFixture,
  REPLY_ENV,
  replyAddressOf,
  replyFixtures,
} from '../../../test/reply-mails.js';
import { runCli } from '../../cli/main.js';
import { translator } from '../../mail/texts.js';

/**
 * Reply by e-mail through the pipe command (docs/mail-replies.md): `npm run kith -- receive-mail`
 * as a real child process with the mail on stdin, on the database of a running test app, as a
 * mail server's pipe transport runs it; and the exit codes a pipe transport reads.
 */

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..', '..');

describe('reply by e-mail: npm run kith -- receive-mail', () => {
  const h = useTestApp({ ...REPLY_ENV });
  let env: Record<string, string>;
  let ana: BuiltUser;
  let ben: BuiltUser;
  let group: string;

  beforeAll(async () => {
    const { config } = h.t;
    // The command works on the app's own stores, as it would beside a running server.
    env = {
      DATA_DIR: config.dataDir,
      SECRET_KEY: config.secretKey,
      PUBLIC_URL: config.publicUrl,
      LOG_LEVEL: 'warn',
      ...REPLY_ENV,
      ...(config.database.kind === 'postgres' ? { DATABASE_URL: config.database.url } : {}),
      ...(config.redisUrl === null ? {} : { REDIS_URL: config.redisUrl, REDIS_KEY_PREFIX: config.redisPrefix }),
      ...(config.s3 === null ? {} : s3Env(config.s3.endpoint ?? '', config.s3.bucket)),
    };
    ana = await buildUser(h.t.ctx, { name: 'Ana', login: 'ana.pipe@example.org' });
    ben = await buildUser(h.t.ctx, { name: 'Ben', login: 'ben.pipe@example.org' });
    group = (await buildGroup(h.t.ctx, { members: [ana, ben] })).id;
  });

  async function post(text: string): Promise<string> {
    const res = await h.api.post('/messages', { key: ben.key, body: { group, data: { text } } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  /** The command as a child process, the mail on its stdin. */
  function pipe(mail: string | Buffer, args: string[] = [], extraEnv: Record<string, string> = {}) {
    return spawnSync('npm', ['run', '--silent', 'kith', '--', 'receive-mail', ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env, ...extraEnv },
      input: mail,
      encoding: 'utf8',
    });
  }

  // npm starts a second Node that loads the CLI: seconds on a busy machine.
  it.each(replyFixtures().map((f) => [f.name, f] as const))(
    'fixture %s piped in becomes the expected comment (exit 0)',
    { timeout: 90_000 },
    async (_name, fixture) => {
      const postId = await post(`Piped ${fixture.name}`);
      const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
      // Postfix's pipe delivery: the recipient on the command line, Delivered-To in the mail.
      const raw = `Delivered-To: ${to}\r\n${fillFixture(fixture.template, ana.user.login, to)}`;
      const result = pipe(raw, ['--sender', ana.user.login, '--recipient', to]);
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).results).toEqual([
        { outcome: 'posted', recipient: expect.any(String), commentId: expect.any(String) },
      ]);
      expect(await commentsOn(h.t.ctx, postId)).toEqual([
        { id: expect.any(String), author: ana.user.id, text: fixture.expected.text, files: fixture.expected.photos },
      ]);
    },
  );

  it(
    'finds the reply address in the headers without --recipient; a bad one gets Kith’s bounce (exit 0)',
    { timeout: 90_000 },
    async () => {
      const to = `reply+${'b'.repeat(32)}@kith.test`;
      const raw = await composeMail({ from: ana.user.login, to, subject: 'Re: hello', text: 'Hello' });
      const result = pipe(raw);
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).results).toEqual([
        { outcome: 'bounced', recipient: expect.any(String), reason: 'unknown_address' },
      ]);
      // The bounce waits in the shared mail queue, which the running server sends. The command ran
      // on the system clock, ahead of the app's test clock: bring the app up to it.
      h.t.clock.set(Math.max(h.t.clock.now(), Date.now()) + 1000);
      const bounce = await h.t.mailer.waitFor((m) => m.kind === 'reply-bounce' && m.to === ana.user.login);
      expect(bounce.subject).toBe(translator('en_US')('reply.bounce_subject'));
    },
  );

  /** runCli in process, with `mail` as stdin. */
  async function cli(args: string[], stdin: Readable, extraEnv: Record<string, string> = {}) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['receive-mail', ...args], {
      stdout: (s) => (stdout += s),
      stderr: (s) => (stderr += s),
      env: { ...env, ...extraEnv },
      stdin,
    });
    return { code, stdout, stderr };
  }

  it('exits 75 (try again later) when the mail cannot be read, and keeps nothing', async () => {
    const broken = new Readable({
      read() {
        this.destroy(new Error('connection to the mail server lost'));
      },
    });
    const out = await cli([], broken);
    expect(out.code).toBe(75);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain('connection to the mail server lost');
  });

  it('exits 78 when reply by e-mail is off, and 64 on wrong arguments', async () => {
    expect((await cli([], Readable.from(['x']), { REPLY_EMAIL: '' })).code).toBe(78);
    expect((await cli(['--to', 'x'], Readable.from(['x']))).code).toBe(64);
  });
});
