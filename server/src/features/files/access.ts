import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/schema.js';
import { unauthenticated } from '../../http/caller.js';
import { ApiError, notFound } from '../../lib/errors.js';
import { parseId } from '../../lib/ids.js';
import { userFromMediaCookie } from '../auth/media-cookie.js';
import { urlsInText } from '../../lib/urls.js';
import { grantedMessages } from '../grants/public-grants.js';
import { hasPublicCookie } from '../../http/cookies.js';
import { isUserVisibleTo } from '../users/queries.js';
import type { FileRow, UserRow } from '../../db/rows.js';
import {
  findFile,
  isAttachedToAnyOf,
  isAttachedToReadableMessage,
  isLinkPreviewImage,
  isPreviewImageOfAnyLink,
  usersWithAvatar,
} from './queries.js';
import { checkImageSignature, checkSignature } from './signing.js';

// Who may read a file (docs/api §1.8, §1.9), in one place: the file's metadata
// (GET /api/files/{id}), its thumbnails and crops (/api/images/…) and its bytes (/files/…) all
// ask this module, so the three can never disagree about who may see what.

type Q = Kysely<Database>;

/**
 * Readable file rules 1–4 (docs/api §1.8) for a signed-in caller: they uploaded it, it is the
 * preview image of a link (images of public web pages, readable by any signed-in user), it is
 * attached to a message they can read, or it is the avatar of a user visible to them.
 */
export async function canReadFile(db: Q, userId: string, file: FileRow): Promise<boolean> {
  if (file.uploader_id === userId) return true;
  if (file.uploader_id === null && file.kind === 'image' && (await isLinkPreviewImage(db, file.id))) return true;
  if (await isAttachedToReadableMessage(db, userId, file.id)) return true;
  for (const owner of await usersWithAvatar(db, file.id)) {
    if (await isUserVisibleTo(db, userId, owner)) return true;
  }
  return false;
}

/**
 * Readable file rule 5 (docs/api §1.8): the file is attached to a message a `kith_public` grant
 * still opens, or is the preview image of the link of a URL in its text (which covers its card
 * picture, §10.6). `messages` come from `grantedMessages`.
 */
export async function isFileGranted(
  db: Q,
  messages: { id: string; text: string | null }[],
  fileId: string,
): Promise<boolean> {
  if (messages.length === 0) return false;
  const messageIds = messages.map((m) => m.id);
  if (await isAttachedToAnyOf(db, messageIds, fileId)) return true;
  const urls = [...new Set(messages.flatMap((m) => urlsInText(m.text)))];
  if (urls.length === 0) return false;
  return isPreviewImageOfAnyLink(db, urls, fileId);
}

/** What a request brings to read a file with: a user (header or media cookie), a public cookie. */
interface Reader {
  user: UserRow | null;
  publicCookie: boolean;
}

/**
 * The credentials a request to a file route holds (docs/api §1.9): the header's user; for images
 * only, else the `kith_media` cookie's user; and the `kith_public` cookie. A key that was sent but
 * is not valid is never replaced by a cookie. Without any of them: 401, as for a keyed route.
 */
async function readerOf(ctx: AppContext, request: FastifyRequest, route: 'metadata' | 'image'): Promise<Reader> {
  const keyMissing = request.authProblem === 'missing';
  const user = request.user ?? (route === 'image' && keyMissing ? await userFromMediaCookie(ctx, request) : null);
  const publicCookie = (keyMissing || user !== null) && hasPublicCookie(request);
  if (user === null && !publicCookie) throw unauthenticated(request);
  return { user, publicCookie };
}

/** The file `rawId` names when `reader` may read it by rules 1–5 (§1.8); 404 otherwise, as for no file. */
async function fileReadableBy(
  ctx: AppContext,
  request: FastifyRequest,
  reader: Reader,
  rawId: string,
): Promise<FileRow> {
  const db = ctx.db.kysely;
  const id = parseId(rawId);
  const file = id === null ? undefined : await findFile(db, id);
  if (file === undefined) throw notFound();
  if (reader.user !== null && (await canReadFile(db, reader.user.id, file))) return file;
  if (reader.publicCookie && (await isFileGranted(db, await grantedMessages(ctx, request), file.id))) return file;
  throw notFound();
}

/** GET /api/files/{id} (docs/api §7.2): the file, read with the header or a `kith_public` grant. */
export async function fileForMetadata(ctx: AppContext, request: FastifyRequest, rawId: string): Promise<FileRow> {
  return fileReadableBy(ctx, request, await readerOf(ctx, request, 'metadata'), rawId);
}

/**
 * `/api/images/{type}/{w}/{h}/{id}` (docs/api §7.4): the file of a picture. A digest e-mail's signed
 * URL (`exp`, `sig`) opens that one picture without a login (docs/decisions.md): 404 when bad, 403
 * when expired. Otherwise the header, the `kith_media` cookie or a `kith_public` grant.
 */
export async function fileForImage(
  ctx: AppContext,
  request: FastifyRequest,
  params: { type: string; w: string; h: string; id: string },
  query: { exp?: unknown; sig?: unknown },
): Promise<FileRow> {
  if (query.sig === undefined || request.user !== null) {
    return fileReadableBy(ctx, request, await readerOf(ctx, request, 'image'), params.id);
  }
  const verdict = checkImageSignature(ctx.config.secretKey, params, query.exp, query.sig, ctx.clock.now());
  if (verdict === 'bad') throw notFound();
  if (verdict === 'expired') throw new ApiError(403, 'url_expired', 'This picture link has expired');
  const id = parseId(params.id);
  const file = id === null ? undefined : await findFile(ctx.db.kysely, id);
  if (file === undefined) throw notFound();
  return file;
}

/**
 * `/files/<fileId>.<ext>?exp=&sig=` (docs/api §1.9, §7.3): holding a valid signed name is the
 * permission, because names are handed out only in answers that passed the rules above. A bad
 * name or signature, or an unknown file: 404; an expired name: 403 `url_expired`.
 */
export async function fileForBytes(ctx: AppContext, name: string, exp: unknown, sig: unknown): Promise<FileRow> {
  const match = /^([0-9a-f-]{36})\.([a-z0-9]{1,8})$/.exec(name);
  const id = match === null ? null : parseId(match[1] ?? '');
  if (match === null || id === null) throw notFound();
  const verdict = checkSignature(ctx.config.secretKey, name, exp, sig, ctx.clock.now());
  if (verdict === 'bad') throw notFound();
  if (verdict === 'expired') {
    throw new ApiError(403, 'url_expired', 'This file link has expired. Ask for a fresh one');
  }
  const file = await findFile(ctx.db.kysely, id);
  if (file === undefined || file.ext !== match[2]) throw notFound();
  return file;
}
