import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/harness.js';
import { addZusamPost, generateZusam, ZUSAM_PASSWORDS, type ZusamInstance } from '../../test/zusam/generate.js';
import { importZusam, zusamTextToKith, type ImportReport } from './import-zusam.js';
import { runCliCaptured } from '../../test/cli.js';

// Two small generated Zusam instances (0.5.6 and 0.6.1) imported into one Kith, then checked
// through the API as their users see it.
describe('import-zusam', () => {
  const h = useTestApp();
  let dir: string;
  let z05: ZusamInstance;
  let z06: ZusamInstance;
  let r05: ImportReport;
  let r06: ImportReport;
  const progress: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kith-zusam-'));
    [z05, z06] = await Promise.all([
      generateZusam(path.join(dir, '056'), '0.5.6'),
      generateZusam(path.join(dir, '061'), '0.6.1'),
    ]);
    // Batches smaller than the data, so that parents and children land in different batches.
    r05 = await importZusam(h.t.ctx, { dbPath: z05.dbPath, filesDir: z05.filesDir, batchSize: 2 }, (l) =>
      progress.push(l),
    );
    r06 = await importZusam(h.t.ctx, { dbPath: z06.dbPath, filesDir: z06.filesDir, batchSize: 3 }, (l) =>
      progress.push(l),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function env(): Record<string, string> {
    const config = h.t.config;
    return {
      DATA_DIR: config.dataDir,
      SECRET_KEY: config.secretKey,
      PUBLIC_URL: config.publicUrl,
      ...(config.database.kind === 'postgres' ? { DATABASE_URL: config.database.url } : {}),
    };
  }

  const cli = (...argv: string[]) => runCliCaptured(argv, env());

  it('reports what it imported and every oddity it left out, with why', () => {
    for (const [report, version] of [
      [r05, '0.5'],
      [r06, '0.6'],
    ] as const) {
      expect(report.zusamVersion).toBe(version);
      expect(report.counts.users).toEqual({ imported: 5, alreadyThere: 0, skipped: 0 });
      expect(report.counts.groups).toEqual({ imported: 2, alreadyThere: 0, skipped: 0 });
      expect(report.counts.files).toEqual({ imported: 4, alreadyThere: 0, skipped: 1 });
      expect(report.counts.memberships).toEqual({ imported: 6, alreadyThere: 0, skipped: 1 });
      expect(report.counts.messages).toEqual({ imported: version === '0.6' ? 7 : 6, alreadyThere: 0, skipped: 2 });
      // alice's table bookmark, its duplicate and her legacy list (one new, one the same again).
      expect(report.counts.bookmarks).toEqual({ imported: 3, alreadyThere: 0, skipped: 3 });
      expect(report.counts.reactions).toEqual(
        version === '0.6' ? { imported: 2, alreadyThere: 0, skipped: 1 } : { imported: 0, alreadyThere: 0, skipped: 0 },
      );
    }
    const z = z06;
    expect(r06.skipped).toEqual(
      expect.arrayContaining([
        { kind: 'files', zusamId: z.files.missing, reason: expect.stringContaining('missing from the files folder') },
        { kind: 'memberships', zusamId: `${z.deletedUserId}:${z.groups.family.id}`, reason: 'the user is gone' },
        { kind: 'messages', zusamId: z.messages.orphanComment, reason: 'a comment whose parent is gone' },
        { kind: 'messages', zusamId: z.messages.lostGroup, reason: 'its group is gone' },
        { kind: 'bookmarks', zusamId: expect.any(String), reason: 'its message is gone' },
        { kind: 'bookmarks', zusamId: expect.any(String), reason: 'a duplicate of a bookmark already imported' },
        { kind: 'reactions', zusamId: expect.any(String), reason: 'its author is gone' },
      ]),
    );
    expect(r06.skipped).toHaveLength(1 + 1 + 2 + 3 + 1);
    expect(r06.adjusted).toEqual(
      expect.arrayContaining([
        { kind: 'messages', zusamId: z.messages.orphanAuthor, reason: 'its author is gone: imported without one' },
        { kind: 'messages', zusamId: z.messages.video, reason: `its file ${z.files.missing} was not imported` },
      ]),
    );
    expect(progress.join('')).toMatch(/messages: 7 imported, 0 already there, 2 skipped \(done\)/);
  });

  it('keeps every password working, then replaces the hash by Kith’s own', async () => {
    for (const z of [z05, z06]) {
      for (const person of ['alice', 'bob', 'carol', 'dave'] as const) {
        const user = z.users[person];
        const { password } = ZUSAM_PASSWORDS[person];
        const before = await h.t.ctx.db.kysely
          .selectFrom('users')
          .select('password_hash')
          .where('id', '=', user.id)
          .executeTakeFirstOrThrow();
        expect(before.password_hash).not.toMatch(/^\$argon2id\$v=19\$m=19456/);
        // A wrong password fails: checked once per format family (bcrypt at cost 13 takes seconds
        // on a loaded machine; the 0.6.1 hashes are the same formats as 0.5.6's).
        if (z.version === '0.5.6' && (person === 'bob' || person === 'carol')) {
          const wrong = await h.api.post('/login', { body: { login: user.login, password: `${password}x` } });
          expect(wrong.status).toBe(401);
        }
        const ok = await h.api.post('/login', { body: { login: user.login, password } });
        expect(ok.status, `${z.version} ${person}`).toBe(200);
        // The Zusam API key is handed back: the old client stays signed in with it.
        expect(ok.body.api_key).toBe(user.apiKey);
        const after = await h.t.ctx.db.kysely
          .selectFrom('users')
          .select('password_hash')
          .where('id', '=', user.id)
          .executeTakeFirstOrThrow();
        expect(after.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      }
    }
    // A bot account's empty hash matches nothing.
    const bot = await h.api.post('/login', { body: { login: z06.users.bot.login, password: 'anything' } });
    expect(bot.status).toBe(401);
  }, 150_000);

  it('keeps the Zusam API keys, settings and avatars', async () => {
    const me = await h.api.get('/me', { key: z05.users.alice.apiKey });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: z05.users.alice.id,
      name: 'Alice Martin',
      login: z05.users.alice.login,
      avatar: { id: z05.files.avatar },
      data: { lang: 'fr_FR', notification_emails: 'daily' },
    });
    expect(me.body.groups.map((g: { id: string }) => g.id).sort()).toEqual(
      [z05.groups.family.id, z05.groups.club.id].sort(),
    );
    // Missing notification setting: no mail in 0.5, the 0.6 default (immediately) in 0.6.
    const bob05 = await h.api.get('/me', { key: z05.users.bob.apiKey });
    const bob06 = await h.api.get('/me', { key: z06.users.bob.apiKey });
    expect(bob05.body.data.notification_emails).toBe('none');
    expect(bob06.body.data.notification_emails).toBe('immediately');
    // carol's default group is one she is not in: dropped.
    const carol = await h.api.get('/me', { key: z06.users.carol.apiKey });
    expect(carol.body.data).toMatchObject({ notification_emails: 'weekly', lang: 'de_DE' });
    expect(carol.body.data.default_group).toBeUndefined();
    expect(carol.body.groups.map((g: { id: string }) => g.id)).toEqual([z06.groups.family.id]);
    // dave is in no group.
    const dave = await h.api.get('/me', { key: z06.users.dave.apiKey });
    expect(dave.body.groups).toEqual([]);
    expect(await h.api.get('/me', { key: 'not-a-zusam-key' })).toMatchObject({ status: 401 });
  });

  it('keeps the old invitation links (0.5 secret_key, 0.6 invite_key)', async () => {
    for (const z of [z05, z06]) {
      const joined = await h.api.post(`/groups/invitation/${z.groups.family.inviteKey}`, { key: z.users.dave.apiKey });
      expect(joined.status, z.version).toBe(200);
      expect(joined.body.id).toBe(z.groups.family.id);
    }
    // 0.6 kept a stale secret_key beside invite_key: only invite_key is the invitation.
    const signup = await h.api.post('/signup', {
      body: { login: 'newcomer@example.org', password: 'newcomer-pass', invite_key: z06.groups.club.inviteKey },
    });
    expect(signup.status).toBe(200);
    expect(signup.body.group).toBe(z06.groups.club.id);
  });

  it('shows each member the same groups, messages, comments and files; outsiders see none', async () => {
    const z = z06;
    const key = z.users.bob.apiKey;
    const page = await h.api.get(`/groups/${z.groups.family.id}/page/0`, { key });
    expect(page.status).toBe(200);
    // In front, newest activity first: the summer post (pinned), carol's published reply, …
    expect(page.body.messages).toEqual(
      expect.arrayContaining([
        z.messages.summer,
        z.messages.reply,
        z.messages.video,
        z.messages.orphanAuthor,
        z.messages.rich,
      ]),
    );
    expect(page.body.messages).not.toContain(z.messages.comment);
    const summer = await h.api.get(`/messages/${z.messages.summer}`, { key });
    expect(summer.body).toMatchObject({
      data: { title: "Planning de l'été", text: 'Qui vient en août ?\nRéponse avant #juin' },
      author: { id: z.users.alice.id },
      createdAt: 1_700_000_010,
      lastActivityDate: 1_700_000_300,
      children: [{ id: z.messages.comment }],
      pinnedInGroup: true,
      sortOrder: 1,
      preview: { id: z.files.jpeg },
    });
    // Zusam's order: file_index NULL first, then 1.
    expect(summer.body.files.map((f: { id: string }) => f.id)).toEqual([z.files.jpeg, z.files.pdf]);
    expect(summer.body.reactions.map((r: { emoji: string }) => r.emoji).sort()).toEqual(['❤️', '👍'].sort());
    const reply = await h.api.get(`/messages/${z.messages.reply}`, { key });
    expect(reply.body).toMatchObject({
      parent: { id: z.messages.comment },
      lineage: [z.messages.comment, z.messages.summer],
      isInFront: true,
    });
    const rich = await h.api.get(`/messages/${z.messages.rich}`, { key });
    expect(rich.body.data).toEqual({
      title: 'Sortie raquettes',
      text: 'Samedi 14 mars, départ à 8h\nApportez des raquettes',
    });
    expect(rich.body.sortOrder).toBe(2);
    const orphan = await h.api.get(`/messages/${z.messages.orphanAuthor}`, { key });
    expect(orphan.body.author).toBeNull();
    // The shared JPEG is one file in two messages of two groups.
    const shared = await h.api.get(`/messages/${z.messages.shared}`, { key });
    expect(shared.body.files.map((f: { id: string }) => f.id)).toEqual([z.files.jpeg]);

    // The JPEG is served through Kith's pipeline: cleaned of its EXIF.
    const jpeg = summer.body.files[0];
    const bytes = await h.t.app.inject({ method: 'GET', url: `/files/${jpeg.contentUrl}` });
    expect(bytes.statusCode).toBe(200);
    const meta = await sharp(bytes.rawPayload).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.exif).toBeUndefined();
    const pdf = await h.t.app.inject({ method: 'GET', url: `/files/${summer.body.files[1].contentUrl}` });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    // Outsiders (dave of 0.5 is in the 0.5 groups, not these) and visitors see nothing.
    expect((await h.api.get(`/messages/${z.messages.summer}`, { key: z05.users.bob.apiKey })).status).toBe(404);
    expect((await h.api.get(`/groups/${z.groups.family.id}/page/0`, { key: z05.users.bob.apiKey })).status).toBe(404);
    expect((await h.api.get(`/messages/${z.messages.summer}`)).status).toBe(401);
  });

  it('queues the videos for Kith’s own conversion', async () => {
    const z = z05;
    const video = await h.api.get(`/messages/${z.messages.video}`, { key: z.users.bob.apiKey });
    expect(video.body.files.map((f: { id: string }) => f.id)).toEqual([z.files.video]);
    expect(video.body.files[0]).toMatchObject({ type: 'video/mp4', status: 'raw' });
    await h.t.ctx.jobs.drain();
    const converted = await h.api.get(`/files/${z.files.video}`, { key: z.users.bob.apiKey });
    expect(converted.body).toMatchObject({ id: z.files.video, status: 'ready' });
  });

  it('brings over bookmarks (table and legacy list, once each)', async () => {
    const z = z05;
    const alice = await h.api.get('/me/bookmarks', { key: z.users.alice.apiKey });
    expect(alice.body.map((b: { message: { id: string } }) => b.message.id).sort()).toEqual(
      [z.messages.video, z.messages.comment].sort(),
    );
    const carol = await h.api.get('/me/bookmarks', { key: z.users.carol.apiKey });
    expect(carol.body.map((b: { message: { id: string } }) => b.message.id)).toEqual([z.messages.summer]);
  });

  it('a second run imports nothing new; a third brings only the new post', async () => {
    const again = await cli('import-zusam', '--db', z06.dbPath, '--files', z06.filesDir);
    expect(again.code, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as ImportReport;
    for (const counts of Object.values(report.counts)) expect(counts.imported).toBe(0);
    expect(report.counts.messages.alreadyThere).toBe(7);
    expect(report.counts.users.alreadyThere).toBe(5);
    expect(again.stderr).toMatch(/users: 0 imported, 5 already there/);
    // No password hash or API key in what it prints.
    for (const secret of [z06.users.alice.apiKey, ZUSAM_PASSWORDS.alice.hash, '$argon2', '$2y$']) {
      expect(again.stdout + again.stderr).not.toContain(secret);
    }

    const added = addZusamPost(z06, 'Après la migration');
    const third = await importZusam(h.t.ctx, { dbPath: z06.dbPath, filesDir: z06.filesDir, batchSize: 100 }, () => {});
    expect(third.counts.messages).toEqual({ imported: 1, alreadyThere: 7, skipped: 2 });
    expect(third.counts.users.imported + third.counts.files.imported + third.counts.bookmarks.imported).toBe(0);
    const post = await h.api.get(`/messages/${added}`, { key: z06.users.bob.apiKey });
    expect(post.body.data).toEqual({ title: 'Après la migration', text: 'Nouveau' });
  });

  it('refuses bad options with clear errors', async () => {
    const notZusam = path.join(dir, 'not-zusam.db');
    writeFileSync(notZusam, 'hello');
    const cases: [string[], RegExp][] = [
      [['--files', z05.filesDir], /Missing --db/],
      [['--db', z05.dbPath], /Missing --files/],
      [['--db', path.join(dir, 'nope.db'), '--files', z05.filesDir], /--db: no file at/],
      [['--db', notZusam, '--files', z05.filesDir], /--db: .* is not an SQLite database/],
      [['--db', z05.dbPath, '--files', path.join(dir, 'nowhere')], /--files: no folder at/],
      [['--db', z05.dbPath, '--files', z05.filesDir, '--batch-size', '0'], /--batch-size must be a whole number/],
      [['--db', z05.dbPath, '--files', z05.filesDir, '--verbose'], /Unknown option --verbose/],
    ];
    for (const [args, message] of cases) {
      const out = await cli('import-zusam', ...args);
      expect(out.code, args.join(' ')).toBe(1);
      expect(out.stderr).toMatch(message);
      expect(out.stdout).toBe('');
    }
  });
});

describe('zusamTextToKith', () => {
  it('keeps plain text and flattens Quill text', () => {
    expect(zusamTextToKith('Plain {text}\n')).toBe('Plain {text}\n');
    expect(zusamTextToKith(undefined)).toBeNull();
    const quill = JSON.stringify({
      delta: {
        ops: [
          { insert: 'Liste' },
          { insert: '\n' },
          { insert: 'pain' },
          { insert: '\n', attributes: { list: 'bullet' } },
          { insert: 'le site', attributes: { link: 'https://example.org/' } },
          { insert: '\n', attributes: { list: 'ordered' } },
          { insert: { image: 'x' } },
        ],
      },
      textOnly: 'Liste\npain\nle site\n',
    });
    expect(zusamTextToKith(quill)).toBe('Liste\n• pain\n1. le site (https://example.org/)');
  });
});
