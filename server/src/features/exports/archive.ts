import { Readable, type PassThrough } from 'node:stream';
import { fillLocalized, formatDate } from '@kith/common';
import yazl from 'yazl';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { FileStore } from '../../storage/file-store.js';
import { serverText } from '../../mail/texts.js';
import {
  archiveMessagesPage,
  bookmarksPage,
  filesOfMessages,
  groupNames,
  repliesInScope,
  userNames,
  type ArchiveFileRow,
  type ArchiveMessageRow,
  type ArchiveScope,
  type PageCursor,
} from './queries.js';

/**
 * The zip of an export (docs/api §11.12): `export.json` (what it is, who and which groups it
 * names, counts), `messages.json` (messages and comments, oldest first), `bookmarks.json` (a
 * member's export), `files/<id>.<ext>` (the stored bytes of every attached file) and `index.html`
 * (the same, browsable offline: escaped texts, no scripts, pictures from `files/`).
 *
 * Nothing is held whole in memory: the JSON and the HTML are written page by page as the zip takes
 * them, and each file is read from the FileStore only when its turn in the zip comes.
 */

/** The format's name and version, in export.json: a reader checks them first. */
export const ARCHIVE_FORMAT = { format: 'kith-export', version: 1 } as const;

/** Messages per page: few statements, small pages in memory. */
const PAGE = 200;

/** What the archive is about, for its title and export.json. */
export interface ArchiveSubject {
  scope: ArchiveScope;
  /** The member (member exports) or the group (group exports). */
  subject: { id: string; name: string };
  /** The members of the group (group exports): their names are part of the archive. */
  members?: { id: string; name: string }[];
  /** The language of the index's texts. */
  lang: string;
  /** When the export was asked for (ms). */
  exportedAt: number;
}

/** Counts written to export.json and answered to the CLI. */
export interface ArchiveCounts {
  messages: number;
  comments: number;
  files: number;
  bytesOfFiles: number;
  bookmarks: number;
}

/** A message as messages.json holds it. */
interface ArchiveMessage {
  id: string;
  kind: 'message' | 'comment';
  groupId: string;
  parentId: string | null;
  rootId: string;
  authorId: string | null;
  title: string | null;
  text: string;
  createdAt: string;
  files: { id: string; name: string; type: string; size: number; path: string }[];
}

/** The path of a file inside the zip; ids and extensions are the server's own (no user text). */
function filePath(file: Pick<ArchiveFileRow, 'id' | 'ext'>): string {
  return `files/${file.id}.${file.ext.replace(/[^A-Za-z0-9]/g, '') || 'bin'}`;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Pages of the scope's messages, each with its files (one query per page, never per message). */
async function* messagePages(
  db: Kysely<Database>,
  scope: ArchiveScope,
): AsyncGenerator<{ rows: ArchiveMessageRow[]; files: Map<string, ArchiveFileRow[]> }> {
  let cursor: PageCursor | null = null;
  for (;;) {
    const rows = await archiveMessagesPage(db, scope, cursor, PAGE);
    if (rows.length === 0) return;
    const files = new Map<string, ArchiveFileRow[]>();
    for (const file of await filesOfMessages(
      db,
      rows.map((r) => r.id),
    )) {
      const list = files.get(file.message_id) ?? [];
      list.push(file);
      files.set(file.message_id, list);
    }
    yield { rows, files };
    const last = rows[rows.length - 1] as ArchiveMessageRow;
    cursor = { createdAt: last.created_at, id: last.id };
    if (rows.length < PAGE) return;
  }
}

function toArchiveMessage(row: ArchiveMessageRow, files: ArchiveFileRow[]): ArchiveMessage {
  return {
    id: row.id,
    kind: row.parent_id === null ? 'message' : 'comment',
    groupId: row.group_id,
    parentId: row.parent_id,
    rootId: row.root_id,
    authorId: row.author_id,
    title: row.title === null || row.title === '' ? null : row.title,
    text: row.text ?? '',
    createdAt: iso(row.created_at),
    files: files.map((f) => ({ id: f.id, name: f.name, type: f.type, size: f.size, path: filePath(f) })),
  };
}

/** Where the archive's bytes go, and how it reports. */
export interface ArchiveOutput {
  db: Kysely<Database>;
  files: FileStore;
  /** Called every page with the messages written so far (the CLI's progress). */
  progress?: (written: number) => void;
}

/**
 * Streams the archive of `subject` as a zip into `sink` (which consumes the stream, e.g.
 * FileStore.write); resolves with the counts once the sink has taken all of it.
 */
export async function writeArchive<T>(
  subject: ArchiveSubject,
  out: ArchiveOutput,
  sink: (zip: Readable) => Promise<T>,
): Promise<{ counts: ArchiveCounts; result: T }> {
  const { db, files } = out;
  const { scope } = subject;
  const zip = new yazl.ZipFile();
  const output = zip.outputStream as PassThrough;
  const fail = (error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error)));
  zip.on('error', fail);
  const counts: ArchiveCounts = { messages: 0, comments: 0, files: 0, bytesOfFiles: 0, bookmarks: 0 };
  const groupIds = new Set<string>();
  const authorIds = new Set<string>();
  const filesAdded = new Set<string>();
  const root = 'kith-export/';

  /** A lazily read entry whose stream failing fails the whole archive (yazl would wait forever). */
  const addLazy = (name: string, open: () => Readable, compress: boolean) =>
    zip.addReadStreamLazy(`${root}${name}`, { compress, mtime: new Date(subject.exportedAt) }, (callback) => {
      const stream = open();
      stream.once('error', fail);
      callback(null, stream);
    });

  // messages.json: written as the zip takes it; each page queues its files' entries, and the last
  // page queues export.json (with the counts, known by then) and closes the list of entries.
  addLazy(
    'messages.json',
    () =>
      Readable.from(
        (async function* () {
          yield '[';
          let first = true;
          for await (const { rows, files: byMessage } of messagePages(db, scope)) {
            const chunk: string[] = [];
            for (const row of rows) {
              const attached = byMessage.get(row.id) ?? [];
              chunk.push(JSON.stringify(toArchiveMessage(row, attached), null, 1));
              if (row.parent_id === null) counts.messages += 1;
              else counts.comments += 1;
              groupIds.add(row.group_id);
              if (row.author_id !== null) authorIds.add(row.author_id);
              for (const file of attached) {
                // A file may be attached to several messages: it is stored in the zip once.
                if (filesAdded.has(file.id)) continue;
                filesAdded.add(file.id);
                counts.files += 1;
                counts.bytesOfFiles += file.size;
                addLazy(filePath(file), () => files.read(file.storage_key), false);
              }
            }
            yield `${first ? '\n' : ',\n'}${chunk.join(',\n')}`;
            first = false;
            out.progress?.(counts.messages + counts.comments);
          }
          yield '\n]\n';
          // The last entries are queued once every file is known; the zip then closes its list.
          queueSummaryAndEnd();
        })(),
        { objectMode: false },
      ),
    true,
  );

  if (scope.kind === 'member') {
    const userId = scope.userId;
    addLazy(
      'bookmarks.json',
      () =>
        Readable.from(
          (async function* () {
            yield '[';
            let cursor: PageCursor | null = null;
            let first = true;
            for (;;) {
              const rows = await bookmarksPage(db, userId, cursor, PAGE);
              if (rows.length === 0) break;
              const items = rows.map((b) =>
                JSON.stringify({
                  messageId: b.message_id,
                  groupId: b.group_id,
                  title: b.title === null || b.title === '' ? null : b.title,
                  createdAt: iso(b.created_at),
                }),
              );
              counts.bookmarks += rows.length;
              yield `${first ? '\n' : ',\n'}${items.join(',\n')}`;
              first = false;
              const last = rows[rows.length - 1] as (typeof rows)[number];
              cursor = { createdAt: last.created_at, id: last.id };
              if (rows.length < PAGE) break;
            }
            yield '\n]\n';
          })(),
        ),
      true,
    );
  }

  addLazy('index.html', () => Readable.from(htmlIndex(db, subject)), true);

  /** export.json: what the archive is, the names it refers to, and the counts (known by then). */
  const summaryJson = async (): Promise<string> => {
    const people = new Map((subject.members ?? []).map((m) => [m.id, { id: m.id, name: m.name }]));
    if (scope.kind === 'member') people.set(subject.subject.id, subject.subject);
    for (const u of await userNames(
      db,
      [...authorIds].filter((id) => !people.has(id)),
    ))
      people.set(u.id, u);
    const groups = await groupNames(db, [...groupIds]);
    return JSON.stringify(
      {
        ...ARCHIVE_FORMAT,
        kind: scope.kind,
        exportedAt: iso(subject.exportedAt),
        ...(scope.kind === 'member' ? { member: subject.subject } : { group: subject.subject }),
        ...(subject.members !== undefined ? { members: subject.members.map((m) => m.id) } : {}),
        groups: groups.sort((a, b) => a.name.localeCompare(b.name)),
        people: [...people.values()],
        counts,
      },
      null,
      2,
    );
  };
  // Its bytes are made when the zip reaches it, after messages, bookmarks and the index: the counts
  // are final by then.
  const queueSummaryAndEnd = () => {
    addLazy(
      'export.json',
      () =>
        Readable.from(
          (async function* () {
            yield await summaryJson();
          })(),
        ),
      true,
    );
    zip.end();
  };

  const result = await sink(output);
  return { counts, result };
}

/** A text of the index in `lang`, with its placeholders filled (and escaped). */
function texts(lang: string) {
  return (key: string, params: Record<string, string | number> = {}): string => {
    const escaped = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? escapeHtml(v) : v]),
    );
    return fillLocalized(lang, escapeHtml(serverText(lang, `export.${key}`)), escaped);
  };
}

/** A date as people read it, with the exact time in the `datetime` attribute. */
function timeElement(lang: string, ms: number): string {
  const date = new Date(ms);
  return `<time datetime="${date.toISOString()}">${escapeHtml(formatDate(lang, date))} ${date.toISOString().slice(11, 16)} UTC</time>`;
}

/** A message text: escaped, its line breaks kept. */
function textHtml(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, '<br>\n');
}

function fileHtml(file: ArchiveFileRow): string {
  const src = escapeHtml(filePath(file));
  const name = escapeHtml(file.name);
  switch (file.kind) {
    case 'image':
      return `<a href="${src}"><img src="${src}" alt="${name}" loading="lazy"></a>`;
    case 'video':
      return `<video controls preload="none" src="${src}"></video><a href="${src}">${name}</a>`;
    case 'audio':
      return `<audio controls preload="none" src="${src}"></audio><a href="${src}">${name}</a>`;
    default:
      return `<a href="${src}">${name}</a>`;
  }
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:0 auto;padding:1rem;color:#1d1d1f;background:#fff}
article{border-top:1px solid #ccc;padding:.75rem 0}article.comment{margin-left:1.5rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin:.25rem 0}.meta{color:#555;font-size:.9rem;margin:0}
.files img{max-width:100%;height:auto;display:block;margin:.5rem 0}.files video{max-width:100%;display:block}
a{color:#0b57d0}`;

/** index.html, written page by page: every user text escaped, no script, links by `#m-<id>`. */
async function* htmlIndex(db: Kysely<Database>, subject: ArchiveSubject): AsyncGenerator<string> {
  const { lang, scope } = subject;
  const t = texts(lang);
  const title =
    scope.kind === 'member'
      ? t('title_member', { name: subject.subject.name })
      : t('title_group', { name: subject.subject.name });
  yield `<!doctype html>
<html lang="${escapeHtml(lang.replace('_', '-'))}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src 'self' file:; media-src 'self' file:">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${title}</h1>
<p class="meta">${t('exported_on', { date: formatDate(lang, new Date(subject.exportedAt)) })}</p>
<p class="meta">${t('machine_readable')}</p>
`;
  if (subject.members !== undefined) {
    yield `<h2>${t('members')}</h2>\n<ul>${subject.members.map((m) => `<li>${escapeHtml(m.name)}</li>`).join('')}</ul>\n`;
  }
  yield '</header>\n<main>\n';
  const people = new Map<string, string>();
  const groups = new Map<string, string>();
  const inArchive = new Set<string>();
  let any = false;
  for await (const { rows, files } of messagePages(db, scope)) {
    any = true;
    const ids = rows.map((r) => r.id);
    const [authors, groupRows, replies] = await Promise.all([
      userNames(
        db,
        [...new Set(rows.flatMap((r) => (r.author_id === null ? [] : [r.author_id])))].filter((id) => !people.has(id)),
      ),
      groupNames(
        db,
        [...new Set(rows.map((r) => r.group_id))].filter((id) => !groups.has(id)),
      ),
      repliesInScope(db, scope, ids),
    ]);
    for (const u of authors) people.set(u.id, u.name);
    for (const g of groupRows) groups.set(g.id, g.name);
    const repliesOf = new Map<string, string[]>();
    for (const reply of replies) {
      if (reply.parent_id === null) continue;
      repliesOf.set(reply.parent_id, [...(repliesOf.get(reply.parent_id) ?? []), reply.id]);
    }
    const parts: string[] = [];
    for (const row of rows) {
      inArchive.add(row.id);
      const isComment = row.parent_id !== null;
      const author = row.author_id === null ? t('former_member') : escapeHtml(people.get(row.author_id) ?? '');
      const group = escapeHtml(groups.get(row.group_id) ?? '');
      const heading =
        row.title !== null && row.title !== ''
          ? `<h2>${escapeHtml(row.title)}</h2>\n`
          : isComment
            ? ''
            : `<h2>${t('untitled')}</h2>\n`;
      let parent = '';
      if (row.parent_id !== null) {
        // Comments come after what they answer (oldest first), so a parent in the archive is known.
        parent = inArchive.has(row.parent_id)
          ? `<p class="meta">${t('in_reply_to')} <a href="#m-${row.parent_id}">${t('this_message')}</a></p>\n`
          : `<p class="meta">${t('in_reply_to')} ${t('message_elsewhere')}</p>\n`;
      }
      const attached = files.get(row.id) ?? [];
      const filesBlock =
        attached.length === 0 ? '' : `<div class="files">\n${attached.map((f) => fileHtml(f)).join('\n')}\n</div>\n`;
      const children = repliesOf.get(row.id) ?? [];
      const repliesBlock =
        children.length === 0
          ? ''
          : `<p class="meta">${t('comments')} ${children.map((id, i) => `<a href="#m-${id}">${i + 1}</a>`).join(' ')}</p>\n`;
      parts.push(
        `<article id="m-${row.id}" class="${isComment ? 'comment' : 'message'}">\n${heading}<p class="meta">${author} · ${group} · ${timeElement(lang, row.created_at)}</p>\n${parent}<div class="text">${textHtml(row.text ?? '')}</div>\n${filesBlock}${repliesBlock}</article>\n`,
      );
    }
    yield parts.join('');
  }
  if (!any) yield `<p>${t('empty')}</p>\n`;
  yield '</main>\n</body>\n</html>\n';
}
