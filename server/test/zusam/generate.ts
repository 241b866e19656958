import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hash, type Algorithm } from '@node-rs/argon2';
import Database from 'better-sqlite3';
import sharp from 'sharp';

// Builds small Zusam instances (a `data.db` and a `files/` folder) in the shape the fact sheet
// (/work/shared/spec/zusam-data.md) describes for 0.5.6 and 0.6.1: the tables of §4 as the
// migrations leave them, real files, the password hash formats of §6, Quill text (§5.1) and the
// integrity oddities of §7. Written from the fact sheet, not from a Zusam dump.

/** A Zusam version the generator can shape a database like. */
export type ZusamVersion = '0.5.6' | '0.6.1';

const DDL_COMMON = `
CREATE TABLE "user" (id CHAR(36) NOT NULL --(DC2Type:guid)
, avatar_id CHAR(36) DEFAULT NULL --(DC2Type:guid)
, created_at INTEGER NOT NULL, secret_key CHAR(36) NOT NULL --(DC2Type:guid)
, name VARCHAR(255) NOT NULL, login VARCHAR(255) NOT NULL, password VARCHAR(255) NOT NULL,
 data CLOB DEFAULT NULL --(DC2Type:json)
, last_activity_date INTEGER DEFAULT NULL, PRIMARY KEY(id),
 CONSTRAINT FK_8D93D64986383B10 FOREIGN KEY (avatar_id) REFERENCES file (id) NOT DEFERRABLE INITIALLY IMMEDIATE);
CREATE UNIQUE INDEX UNIQ_8D93D649AA08CB10 ON "user" (login);
CREATE UNIQUE INDEX UNIQ_8D93D6497FC6C2B6 ON "user" (secret_key);
CREATE UNIQUE INDEX UNIQ_8D93D64986383B10 ON "user" (avatar_id);
CREATE TABLE "group" (id CHAR(36) NOT NULL --(DC2Type:guid)
, created_at INTEGER NOT NULL, name VARCHAR(255) NOT NULL, last_activity_date INTEGER DEFAULT NULL,
 secret_key VARCHAR(255) NOT NULL, data CLOB DEFAULT NULL --(DC2Type:json)
, PRIMARY KEY(id));
CREATE UNIQUE INDEX UNIQ_6DC044C57FC6C2B6 ON "group" (secret_key);
CREATE TABLE users_groups (user_id CHAR(36) NOT NULL --(DC2Type:guid)
, group_id CHAR(36) NOT NULL --(DC2Type:guid)
, PRIMARY KEY(user_id, group_id),
 CONSTRAINT FK_FF8AB7E0A76ED395 FOREIGN KEY (user_id) REFERENCES "user" (id) ON DELETE CASCADE NOT DEFERRABLE INITIALLY IMMEDIATE,
 CONSTRAINT FK_FF8AB7E0FE54D947 FOREIGN KEY (group_id) REFERENCES "group" (id) ON DELETE CASCADE NOT DEFERRABLE INITIALLY IMMEDIATE);
CREATE INDEX IDX_FF8AB7E0A76ED395 ON users_groups (user_id);
CREATE INDEX IDX_FF8AB7E0FE54D947 ON users_groups (group_id);
CREATE TABLE file (id CHAR(36) NOT NULL --(DC2Type:guid)
, created_at INTEGER NOT NULL, type VARCHAR(255) NOT NULL, status VARCHAR(255) NOT NULL,
 content_url VARCHAR(255) NOT NULL, size INTEGER NOT NULL, file_index INTEGER DEFAULT NULL,
 secret_key CHAR(36) NOT NULL --(DC2Type:guid)
, PRIMARY KEY(id));
CREATE UNIQUE INDEX UNIQ_8C9F36107FC6C2B6 ON file (secret_key);
CREATE TABLE messages_files (message_id CHAR(36) NOT NULL --(DC2Type:guid)
, file_id CHAR(36) NOT NULL --(DC2Type:guid)
, PRIMARY KEY(message_id, file_id));
CREATE INDEX IDX_EF3D1B2F537A1329 ON messages_files (message_id);
CREATE INDEX IDX_EF3D1B2F93CB796C ON messages_files (file_id);
CREATE TABLE link (id CHAR(36) NOT NULL --(DC2Type:guid)
, preview_id CHAR(36) DEFAULT NULL --(DC2Type:guid)
, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, data CLOB NOT NULL --(DC2Type:json)
, url VARCHAR(255) NOT NULL, secret_key CHAR(36) NOT NULL --(DC2Type:guid)
, PRIMARY KEY(id));
CREATE UNIQUE INDEX UNIQ_36AC99F1F47645AE ON link (url);
CREATE TABLE bookmark (id CHAR(36) NOT NULL --(DC2Type:guid)
, user_id CHAR(36) DEFAULT NULL --(DC2Type:guid)
, message_id CHAR(36) DEFAULT NULL --(DC2Type:guid)
, created_at INTEGER NOT NULL, PRIMARY KEY(id));
CREATE INDEX IDX_DA62921DA76ED395 ON bookmark (user_id);
CREATE INDEX IDX_DA62921D537A1329 ON bookmark (message_id);
CREATE TABLE notification (id CHAR(36) NOT NULL --(DC2Type:guid)
, owner_id CHAR(36) DEFAULT NULL, miniature_id CHAR(36) DEFAULT NULL, from_user_id CHAR(36) DEFAULT NULL,
 from_group_id CHAR(36) DEFAULT NULL, from_message_id CHAR(36) DEFAULT NULL, created_at INTEGER NOT NULL,
 type VARCHAR(255) %NOTIFICATION_TYPE_NULL%, secret_key CHAR(36) NOT NULL, target VARCHAR(255) NOT NULL,
 data CLOB DEFAULT NULL --(DC2Type:json)
, read BOOLEAN NOT NULL, PRIMARY KEY(id));
CREATE TABLE tag (id CHAR(36) NOT NULL, group_id CHAR(36) DEFAULT NULL, created_at INTEGER NOT NULL,
 name VARCHAR(255) NOT NULL, PRIMARY KEY(id));
CREATE TABLE tags_messages (tag_id CHAR(36) NOT NULL, message_id CHAR(36) NOT NULL, PRIMARY KEY(tag_id, message_id));
CREATE TABLE system ("key" %SYSTEM_KEY% NOT NULL, value CLOB NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY("key"));
CREATE TABLE doctrine_migration_versions (version VARCHAR(191) NOT NULL, executed_at DATETIME DEFAULT NULL,
 execution_time INTEGER DEFAULT NULL, PRIMARY KEY(version));
`;

const DDL_MESSAGE_056 = `
CREATE TABLE message (id CHAR(36) NOT NULL --(DC2Type:guid)
, author_id CHAR(36) DEFAULT NULL, group_id CHAR(36) DEFAULT NULL, parent_id CHAR(36) DEFAULT NULL,
 preview_id CHAR(36) DEFAULT NULL, created_at INTEGER NOT NULL, data CLOB DEFAULT NULL --(DC2Type:json)
, last_activity_date INTEGER NOT NULL, secret_key CHAR(36) NOT NULL, is_in_front BOOLEAN NOT NULL,
 type VARCHAR(255) DEFAULT NULL, PRIMARY KEY(id));
`;

const DDL_06 = `
CREATE TABLE message (id CHAR(36) NOT NULL --(DC2Type:guid)
, author_id CHAR(36) DEFAULT NULL, group_id CHAR(36) DEFAULT NULL, parent_id CHAR(36) DEFAULT NULL,
 preview_id CHAR(36) DEFAULT NULL, created_at INTEGER NOT NULL, data CLOB DEFAULT NULL --(DC2Type:json)
, last_activity_date INTEGER NOT NULL, secret_key CHAR(36) NOT NULL, is_in_front BOOLEAN NOT NULL,
 type VARCHAR(255) DEFAULT 'standard' NOT NULL, sort_order INTEGER DEFAULT NULL, PRIMARY KEY(id));
CREATE TABLE reaction (id CHAR(36) NOT NULL --(DC2Type:guid)
, author_id CHAR(36) DEFAULT NULL, message_id CHAR(36) DEFAULT NULL, created_at INTEGER NOT NULL,
 value VARCHAR(255) NOT NULL, PRIMARY KEY(id));
CREATE INDEX IDX_A4D707F7F675F31B ON reaction (author_id);
CREATE INDEX IDX_A4D707F7537A1329 ON reaction (message_id);
ALTER TABLE "user" ADD COLUMN last_notification_email_check INTEGER DEFAULT NULL;
ALTER TABLE "group" ADD COLUMN invite_key VARCHAR(255) DEFAULT NULL;
CREATE UNIQUE INDEX UNIQ_6DC044C5A8B6C5A1 ON "group" (invite_key);
`;

/** Passwords (and how Zusam hashed them), fixed: bcrypt at cost 13 takes a second to compute. */
export const ZUSAM_PASSWORDS = {
  /** bcrypt $2y$13$ (Zusam ≥ 0.5). */
  alice: { password: 'alice-password-13', hash: '$2y$13$oC59mAR0rT1w/7.yzqnveOd7gEfVo4pDKnh5ft0PvCNBdSakXxaNO' },
  /** bcrypt $2y$12$ (Zusam ≤ 0.2). */
  bob: { password: 'bob password 12', hash: '$2y$12$HYfPQDWhnKVFVhamlE799eMZV4QyBXRvR00RUv1kbwTsVL53ZEHcq' },
  /** argon2id with Zusam 0.3–0.4's settings (hashed when generating). */
  carol: { password: 'carol-argon2id', hash: '' },
  /** 97 UTF-8 bytes: bcrypt saw base64(sha512(password)). */
  dave: {
    password: 'Ça fait longtemps que ce mot de passe dépasse soixante-douze octets, vraiment très longtemps !',
    hash: '$2y$13$9.G4Bzjd3K4SFrZjk0NFYu0THMLSak8fipYEZU56cof0fL3.LOSYS',
  },
} as const;

type Person = 'alice' | 'bob' | 'carol' | 'dave' | 'bot';

/** What a generated instance holds, for the tests to check against. */
export interface ZusamInstance {
  version: ZusamVersion;
  dbPath: string;
  filesDir: string;
  users: Record<Person, { id: string; login: string; apiKey: string }>;
  /** A user id no row has (an account deleted before the clean-ups). */
  deletedUserId: string;
  groups: {
    family: { id: string; inviteKey: string; name: string };
    club: { id: string; inviteKey: string; name: string };
  };
  messages: {
    /** alice's post in family: a JPEG and a PDF; pinned in 0.6.1. */
    summer: string;
    /** bob's comment on summer. */
    comment: string;
    /** carol's reply to bob's comment (depth 2). */
    reply: string;
    /** bob's post with a video, and a file whose bytes are missing. */
    video: string;
    /** A post of the deleted account. */
    orphanAuthor: string;
    /** alice's post in club sharing the JPEG of summer. */
    shared: string;
    /** 0.6.1 only: a Quill (rich_text) post. */
    rich?: string;
    /** A comment whose parent is gone: not imported. */
    orphanComment: string;
    /** A post of a group that is gone: not imported. */
    lostGroup: string;
  };
  files: { jpeg: string; pdf: string; video: string; avatar: string; missing: string };
  /** A message id no row has (a bookmark's target). */
  deletedMessageId: string;
}

const T0 = 1_700_000_000;

/** Builds a Zusam instance of `version` in `dir` (`dir/data.db`, `dir/files/`). */
export async function generateZusam(dir: string, version: ZusamVersion): Promise<ZusamInstance> {
  const v06 = version !== '0.5.6';
  const filesDir = path.join(dir, 'files');
  mkdirSync(filesDir, { recursive: true });
  const dbPath = path.join(dir, 'data.db');
  const db = new Database(dbPath);
  // PHP leaves foreign keys unenforced, which is how the dangling references of §7 exist.
  db.pragma('foreign_keys = OFF');
  const ddl = DDL_COMMON.replace('%NOTIFICATION_TYPE_NULL%', v06 ? 'NOT NULL' : 'DEFAULT NULL').replace(
    '%SYSTEM_KEY%',
    v06 ? 'CHAR(36)' : 'VARCHAR(255)',
  );
  db.exec(ddl.replace(/--\(DC2Type:\w+\)/g, ''));
  db.exec((v06 ? DDL_06 : DDL_MESSAGE_056).replace(/--\(DC2Type:\w+\)/g, ''));

  const id = () => randomUUID();
  // Each version's people have their own addresses, so both can be imported into one Kith.
  const domain = `zusam${version.replaceAll('.', '')}.example.org`;
  const files = { jpeg: id(), pdf: id(), video: id(), avatar: id(), missing: id() };
  const people: Person[] = ['alice', 'bob', 'carol', 'dave', 'bot'];
  const users = Object.fromEntries(
    people.map((p) => [p, { id: id(), login: `${p}@${domain}`, apiKey: id() }]),
  ) as ZusamInstance['users'];
  const groups = {
    family: { id: id(), inviteKey: id(), name: 'Famille Martin 🏡' },
    club: { id: id(), inviteKey: id(), name: 'Club de raquettes' },
  };
  const messages: ZusamInstance['messages'] = {
    summer: id(),
    comment: id(),
    reply: id(),
    video: id(),
    orphanAuthor: id(),
    shared: id(),
    orphanComment: id(),
    lostGroup: id(),
    ...(v06 ? { rich: id() } : {}),
  };
  const deletedUserId = id();
  const deletedMessageId = id();

  // Files: a JPEG with EXIF (cleaned on the way in), a PNG avatar left raw, a PDF, a short video.
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a7' } })
    .jpeg()
    .withExif({ IFD0: { Copyright: 'Zusam generator', Artist: 'GPS-secret' } })
    .toBuffer();
  writeFileSync(path.join(filesDir, `${files.jpeg}.jpg`), jpeg);
  const png = await sharp({ create: { width: 32, height: 32, channels: 4, background: '#c33' } })
    .png()
    .toBuffer();
  writeFileSync(path.join(filesDir, `${files.avatar}.png`), png);
  writeFileSync(path.join(filesDir, `${files.pdf}.pdf`), readFileSync(PDF_FIXTURE));
  const videoPath = path.join(filesDir, `${files.video}.mp4`);
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=64x48:rate=10:duration=0.5',
    '-pix_fmt',
    'yuv420p',
    '-c:v',
    'libx264',
    '-y',
    videoPath,
  ]);
  const size = (name: string) => readFileSync(path.join(filesDir, name)).length;
  const insertFile = db.prepare(
    'INSERT INTO file (id, created_at, type, status, content_url, size, file_index, secret_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  insertFile.run(files.jpeg, T0, 'image/jpeg', 'ready', `${files.jpeg}.jpg`, size(`${files.jpeg}.jpg`), null, id());
  insertFile.run(files.pdf, T0, 'application/pdf', 'ready', `${files.pdf}.pdf`, size(`${files.pdf}.pdf`), 1, id());
  insertFile.run(files.avatar, T0, 'image/png', 'raw', `${files.avatar}.png`, size(`${files.avatar}.png`), null, id());
  insertFile.run(files.video, T0, 'video/mp4', 'ready', `${files.video}.mp4`, size(`${files.video}.mp4`), 0, id());
  // A row whose bytes the weekly clean-up has not caught up with: gone from disk.
  insertFile.run(files.missing, T0, 'image/jpeg', 'ready', `${files.missing}.jpg`, 1234, 1, id());

  const carolHash = await hash(ZUSAM_PASSWORDS.carol.password, {
    algorithm: 2 as Algorithm,
    memoryCost: 65536,
    timeCost: 4,
    parallelism: 1,
  });
  const userData: Record<Person, unknown> = {
    // Settings with a legacy bookmark list (≤ 0.4) next to the bookmark table (imported as a union).
    alice: {
      mail: users.alice.login,
      lang: 'fr_FR',
      notification_emails: 'daily',
      bookmarks: [messages.comment, messages.video],
    },
    bob: [],
    // default_group outside carol's groups (§7).
    carol: { notification_emails: 'weekly', default_group: groups.club.id, lang: 'de_DE' },
    dave: { mail: users.dave.login, lang: 'xx_XX' },
    bot: null,
  };
  const hashes: Record<Person, string> = {
    alice: ZUSAM_PASSWORDS.alice.hash,
    bob: ZUSAM_PASSWORDS.bob.hash,
    carol: carolHash,
    dave: ZUSAM_PASSWORDS.dave.hash,
    bot: '',
  };
  const names: Record<Person, string> = {
    alice: 'Alice Martin',
    bob: 'Bob',
    carol: 'Carol',
    dave: 'Dave',
    bot: 'Robot',
  };
  const insertUser = db.prepare(
    `INSERT INTO "user" (id, avatar_id, created_at, secret_key, name, login, password, data, last_activity_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const p of people) {
    const u = users[p];
    insertUser.run(
      u.id,
      p === 'alice' ? files.avatar : null,
      T0,
      u.apiKey,
      names[p],
      u.login,
      hashes[p],
      userData[p] === null ? null : JSON.stringify(userData[p]),
      T0 + 100,
    );
  }

  for (const g of [groups.family, groups.club]) {
    if (v06) {
      // 0.6: the invitation key moved to invite_key; secret_key keeps the 0.5 value, unused.
      db.prepare(
        'INSERT INTO "group" (id, created_at, name, last_activity_date, secret_key, data, invite_key) VALUES (?, ?, ?, ?, ?, NULL, ?)',
      ).run(g.id, T0, g.name, T0 + 500, id(), g.inviteKey);
    } else {
      db.prepare(
        'INSERT INTO "group" (id, created_at, name, last_activity_date, secret_key, data) VALUES (?, ?, ?, ?, ?, NULL)',
      ).run(g.id, T0, g.name, T0 + 500, g.inviteKey);
    }
  }
  const member = db.prepare('INSERT INTO users_groups (user_id, group_id) VALUES (?, ?)');
  for (const p of ['alice', 'bob', 'carol', 'bot'] as const) member.run(users[p].id, groups.family.id);
  member.run(users.alice.id, groups.club.id);
  member.run(users.bob.id, groups.club.id);
  // The membership of a deleted account (kept until the monthly clean-up).
  member.run(deletedUserId, groups.family.id);

  const insertMessage = v06
    ? db.prepare(
        'INSERT INTO message (id, author_id, group_id, parent_id, preview_id, created_at, data, last_activity_date, secret_key, is_in_front, type, sort_order) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
    : db.prepare(
        'INSERT INTO message (id, author_id, group_id, parent_id, preview_id, created_at, data, last_activity_date, secret_key, is_in_front, type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
  const message = (m: {
    id: string;
    author: string | null;
    group: string;
    parent?: string;
    preview?: string;
    at: number;
    data: unknown;
    last?: number;
    front: boolean;
    type?: string;
    sort?: number | null;
  }) => {
    const args = [
      m.id,
      m.author,
      m.group,
      m.parent ?? null,
      m.preview ?? null,
      m.at,
      JSON.stringify(m.data),
      m.last ?? m.at,
      id(),
      m.front ? 1 : 0,
      m.type ?? 'standard',
    ];
    insertMessage.run(...(v06 ? [...args, m.sort ?? null] : args));
  };
  const F = groups.family.id;
  message({
    id: messages.summer,
    author: users.alice.id,
    group: F,
    preview: files.jpeg,
    at: T0 + 10,
    last: T0 + 300,
    data: { title: "Planning de l'été", text: 'Qui vient en août ?\nRéponse avant #juin' },
    front: true,
    sort: 1,
  });
  message({
    id: messages.comment,
    author: users.bob.id,
    group: F,
    parent: messages.summer,
    at: T0 + 20,
    last: T0 + 30,
    data: { text: 'Traumhaft! Ich komme.' },
    front: false,
  });
  // Published in the group: a comment in front that keeps its parent.
  message({
    id: messages.reply,
    author: users.carol.id,
    group: F,
    parent: messages.comment,
    at: T0 + 30,
    data: { text: 'Moi aussi' },
    front: true,
  });
  message({
    id: messages.video,
    author: users.bob.id,
    group: F,
    preview: files.video,
    at: T0 + 40,
    data: { title: '', text: 'La vidéo de la sortie' },
    front: true,
  });
  message({
    id: messages.orphanAuthor,
    author: deletedUserId,
    group: F,
    at: T0 + 50,
    data: { title: 'Ancien membre', text: 'Au revoir' },
    front: true,
  });
  message({
    id: messages.shared,
    author: users.alice.id,
    group: groups.club.id,
    preview: files.jpeg,
    at: T0 + 60,
    data: { title: 'Partagé', text: '' },
    front: true,
  });
  message({
    id: messages.orphanComment,
    author: users.bob.id,
    group: F,
    parent: id(),
    at: T0 + 70,
    data: { text: 'Réponse à un message supprimé' },
    front: false,
  });
  message({
    id: messages.lostGroup,
    author: users.bob.id,
    group: id(),
    at: T0 + 80,
    data: { title: 'Groupe disparu', text: 'Perdu' },
    front: true,
  });
  if (messages.rich !== undefined) {
    const quill = {
      delta: {
        ops: [
          { insert: 'Samedi 14 mars', attributes: { bold: true } },
          { insert: ', départ à 8h\nApportez des raquettes\n' },
        ],
      },
      textOnly: 'Samedi 14 mars, départ à 8h\nApportez des raquettes\n',
    };
    message({
      id: messages.rich,
      author: users.carol.id,
      group: F,
      at: T0 + 90,
      data: { title: 'Sortie raquettes', text: JSON.stringify(quill) },
      front: true,
      type: 'rich_text',
      sort: 2,
    });
  }
  const attach = db.prepare('INSERT INTO messages_files (message_id, file_id) VALUES (?, ?)');
  attach.run(messages.summer, files.pdf);
  attach.run(messages.summer, files.jpeg);
  attach.run(messages.video, files.missing);
  attach.run(messages.video, files.video);
  attach.run(messages.shared, files.jpeg);

  const bookmark = db.prepare('INSERT INTO bookmark (id, user_id, message_id, created_at) VALUES (?, ?, ?, ?)');
  bookmark.run(id(), users.alice.id, messages.video, T0 + 200);
  bookmark.run(id(), users.alice.id, messages.video, T0 + 201); // a duplicate
  bookmark.run(id(), users.bob.id, deletedMessageId, T0 + 202); // its message is gone
  bookmark.run(id(), users.carol.id, messages.summer, T0 + 203);

  if (v06) {
    const reaction = db.prepare(
      'INSERT INTO reaction (id, author_id, message_id, created_at, value) VALUES (?, ?, ?, ?, ?)',
    );
    reaction.run(id(), users.bob.id, messages.summer, T0 + 210, '👍');
    reaction.run(id(), users.carol.id, messages.summer, T0 + 211, '❤️');
    reaction.run(id(), deletedUserId, messages.summer, T0 + 212, '😀'); // of a deleted account
  }
  db.prepare(
    'INSERT INTO system ("key", value, created_at) VALUES (\'last_task_name\', \'s:20:"zusam:convert:images";\', ?)',
  ).run(T0);
  db.close();

  return { version, dbPath, filesDir, users, deletedUserId, groups, messages, files, deletedMessageId };
}

/** Adds one post by alice in the family group (what happened on Zusam after a first import). */
export function addZusamPost(instance: ZusamInstance, title: string): string {
  const db = new Database(instance.dbPath);
  const messageId = randomUUID();
  const cols = instance.version === '0.5.6' ? '' : ', sort_order';
  const vals = instance.version === '0.5.6' ? '' : ', NULL';
  db.prepare(
    `INSERT INTO message (id, author_id, group_id, parent_id, preview_id, created_at, data, last_activity_date, secret_key, is_in_front, type${cols}) VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?, 1, 'standard'${vals})`,
  ).run(
    messageId,
    instance.users.alice.id,
    instance.groups.family.id,
    T0 + 1000,
    JSON.stringify({ title, text: 'Nouveau' }),
    T0 + 1000,
    randomUUID(),
  );
  db.close();
  return messageId;
}

const PDF_FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'first-page-dark-top.pdf');
