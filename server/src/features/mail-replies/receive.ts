import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { LIMITS } from '@kith/common';
import { simpleParser, type Attachment, type ParsedMail } from 'mailparser';
import type { AppContext } from '../../context.js';
import { transaction } from '../../db/transaction.js';
import type { UserRow } from '../../db/rows.js';
import { Body } from '../../lib/body.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { THROTTLES } from '../../lib/throttles.js';
import { queueMail } from '../../mail/queue.js';
import { discardUpload, receiveUpload, recordUpload, type ReceivedUpload } from '../files/service.js';
import { canPostInGroup } from '../groups/policy.js';
import { findMembership } from '../memberships/queries.js';
import { findMessage } from '../messages/queries.js';
import { createMessage } from '../messages/service.js';
import { extractReply } from '../replies/extract.js';
import { findUserById } from '../users/queries.js';
import { bounceMail, type BounceReason } from './bounce.js';
import { dropReason, isAccountAddress, type DropReason, type HeaderLookup } from './policy.js';
import {
  claimReceivedReply,
  countReceivedReplies,
  findReplyAddress,
  pruneReceivedReplies,
  pruneReplyAddresses,
  releaseReceivedReply,
  type ReplyAddressRow,
} from './queries.js';
import { readReplyToken, tokenOfAddress } from './token.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a received mail's Message-ID is remembered: far longer than any MTA retries a delivery. */
const REMEMBER_RECEIVED_MS = 14 * DAY_MS;
/** Expired reply addresses are kept this long, so a late reply is told "expired" rather than "unknown". */
const KEEP_EXPIRED_MS = 90 * DAY_MS;

/** What the mail server says about a delivery: the envelope, when it gives one (SMTP/LMTP, pipe arguments). */
export interface Envelope {
  /** MAIL FROM; `''` for the null sender of a bounce. */
  sender?: string;
  /** RCPT TO addresses. Without them, the recipients are read from the headers. */
  recipients?: string[];
}

/** What became of one reply address a mail was sent to. */
export type ReceiveResult =
  | { outcome: 'posted'; recipient: string; commentId: string }
  | { outcome: 'dropped'; recipient: string | null; reason: DropReason | 'duplicate' }
  | { outcome: 'bounced'; recipient: string | null; reason: BounceReason };

/** A thrown `TemporaryReceiveError` (or any error) means: nothing was kept, deliver again later. */
export class TemporaryReceiveError extends Error {
  override readonly name = 'TemporaryReceiveError';
}

/**
 * Takes in one mail sent to reply addresses (docs/api §11.11), the same way for the SMTP/LMTP
 * listener and the pipe command: automatic mails and loops are dropped without a word; each reply
 * address then either becomes a comment by its owner on its message (the text without quotes or
 * signature, the photos as files), or the sender gets one short bounce saying why not. Answers one
 * result per reply address; throws when the mail should be delivered again later (a database
 * outage), having kept nothing.
 */
export async function receiveMail(
  ctx: AppContext,
  raw: Buffer | Readable,
  envelope: Envelope = {},
): Promise<ReceiveResult[]> {
  const replies = ctx.config.mailReplies;
  if (replies === null) throw new TemporaryReceiveError('Reply by e-mail is off (REPLY_EMAIL is not set)');
  const { bytes, size } = Buffer.isBuffer(raw)
    ? { bytes: raw, size: raw.length }
    : await readLimited(raw, replies.maxBytes);
  const tooBig = size > replies.maxBytes;
  // An oversized mail is read for its headers only: enough to drop it or to say why it was refused.
  const parsed = await simpleParser(tooBig ? headOf(bytes) : bytes, {
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
  });
  const header = headerLookup(parsed);
  const ownDomain = /@([^>\s]+)/.exec(ctx.config.mailFrom)?.[1] ?? new URL(ctx.config.publicUrl).hostname;
  const dropped = dropReason(header, envelope.sender, ownDomain);
  const originalId = parsed.messageId ?? null;
  if (dropped !== null) {
    ctx.log.info({ reason: dropped }, 'reply by e-mail dropped');
    return [{ outcome: 'dropped', recipient: null, reason: dropped }];
  }
  const sender = senderOf(parsed, envelope);
  const from = parsed.from?.value[0]?.address ?? null;

  const now = ctx.clock.now();
  await pruneReceivedReplies(ctx.db.kysely, now - REMEMBER_RECEIVED_MS);
  await pruneReplyAddresses(ctx.db.kysely, now - KEEP_EXPIRED_MS);

  const recipients = recipientsOf(envelope, header);
  const tokens = [...new Set(recipients.map((r) => tokenOfAddress(replies, r)).filter((t) => t !== null))];
  const bounce = async (reason: BounceReason, recipient: string | null, user?: UserRow, messageId?: string) => {
    if (sender !== null) {
      const draft = bounceMail(ctx.config, sender, reason, {
        // The account's language only when its owner wrote: a stranger learns nothing of it.
        lang: user !== undefined && isAccountAddress(from, user.login) ? user.lang : null,
        originalMessageId: originalId,
        messageUrl: messageId === undefined ? null : `${ctx.config.publicUrl}/messages/${messageId}`,
      });
      await transaction(ctx, async (_tx, effects) => queueMail(ctx, effects, draft));
    }
    ctx.log.info({ reason }, 'reply by e-mail refused');
    return { outcome: 'bounced', recipient, reason } as const;
  };
  if (tokens.length === 0) return [await bounce('unknown_address', null)];

  const results: ReceiveResult[] = [];
  for (const token of tokens) {
    results.push(await receiveFor(ctx, parsed, token, { tooBig, originalId, from, bounce }));
  }
  return results;
}

type Bounce = (
  reason: BounceReason,
  recipient: string | null,
  user?: UserRow,
  messageId?: string,
) => Promise<ReceiveResult>;

/** One reply address of a mail: the checks in order, then the comment. */
async function receiveFor(
  ctx: AppContext,
  parsed: ParsedMail,
  token: string,
  mail: { tooBig: boolean; originalId: string | null; from: string | null; bounce: Bounce },
): Promise<ReceiveResult> {
  const { bounce } = mail;
  const id = readReplyToken(ctx.config.secretKey, token);
  if (id === null) return bounce('unknown_address', token);
  const address = await findReplyAddress(ctx.db.kysely, id);
  if (address === undefined) return bounce('unknown_address', token);
  const user = await findUserById(ctx.db.kysely, address.user_id);
  // A disabled account posts nothing, by mail either.
  if (user === undefined || user.disabled_at !== null) return bounce('unknown_address', token);
  // A mail delivered twice (a retry after a lost answer, a second MX) counts once, bounces included.
  // One without a Message-ID cannot be recognized again, but still counts against the hourly limit.
  const key =
    mail.originalId === null
      ? `no-id|${newId()}`
      : createHash('sha256').update(`${mail.originalId}|${id}`).digest('hex');
  const now = ctx.clock.now();
  const { limit, windowMs } = THROTTLES.mailRepliesPerUser;
  const earlier = await countReceivedReplies(ctx.db.kysely, user.id, now - windowMs);
  if (!(await claimReceivedReply(ctx.db.kysely, key, user.id, now))) {
    ctx.log.info('reply by e-mail received twice: the second one is dropped');
    return { outcome: 'dropped', recipient: token, reason: 'duplicate' };
  }
  try {
    return await postReply(ctx, parsed, token, { address, user, overLimit: earlier >= limit }, mail);
  } catch (error) {
    // Kept nothing: forget the claim so the mail server's next attempt is taken in.
    await releaseReceivedReply(ctx.db.kysely, key).catch(() => undefined);
    throw error;
  }
}

async function postReply(
  ctx: AppContext,
  parsed: ParsedMail,
  token: string,
  facts: { address: ReplyAddressRow; user: UserRow; overLimit: boolean },
  mail: { tooBig: boolean; from: string | null; bounce: Bounce },
): Promise<ReceiveResult> {
  const { bounce } = mail;
  const { address, user } = facts;
  if (address.expires_at <= ctx.clock.now()) return bounce('expired', token, user, address.message_id);
  if (!isAccountAddress(mail.from, user.login)) return bounce('wrong_sender', token);
  const message = await findMessage(ctx.db.kysely, address.message_id);
  if (message === undefined || message.is_deleted !== 0) return bounce('message_gone', token, user);
  // The rule of POST /api/messages: a member of the message's group (checked again when posting).
  const membership = await findMembership(ctx.db.kysely, message.group_id, user.id);
  if (!canPostInGroup(user, { id: message.group_id }, membership)) return bounce('not_member', token, user);
  if (mail.tooBig) return bounce('too_big', token, user, message.id);
  if (facts.overLimit) return bounce('rate_limited', token, user, message.id);

  const text = extractReply({ text: parsed.text || undefined, html: parsed.html || undefined });
  const photos: ReceivedUpload[] = [];
  try {
    for (const attachment of parsed.attachments.filter(isImage).slice(0, LIMITS.filesPerMessage)) {
      const upload = await receivePhoto(ctx, user, attachment);
      if (upload === 'too_big') {
        await Promise.all(photos.map((p) => discardUpload(ctx, p)));
        return await bounce('too_big', token, user, message.id);
      }
      if (upload !== null) photos.push(upload);
    }
    if (text === '' && photos.length === 0) return await bounce('empty', token, user, message.id);
    // Recorded files are the API's uploads not yet posted: if the comment fails now, housekeeping
    // removes them as it does any unattached upload, so only the unrecorded ones are discarded below.
    const files = [];
    while (photos.length > 0) {
      const photo = photos.shift();
      if (photo !== undefined) files.push((await recordUpload(ctx, photo)).id);
    }
    // Exactly what the comment box sends (POST /api/messages with a parent): notifications, live
    // events, search and immediate mails follow from the messages service.
    const comment = await createMessage(
      ctx,
      user,
      Body.of({ group: message.group_id, parent: message.id, data: { text: text === '' ? null : text }, files }),
    );
    ctx.log.info({ messageId: comment.id }, 'reply by e-mail posted');
    return { outcome: 'posted', recipient: token, commentId: comment.id };
  } catch (error) {
    await Promise.all(photos.map((p) => discardUpload(ctx, p).catch(() => undefined)));
    if (!(error instanceof ApiError)) throw error;
    // Between the checks above and the comment's transaction the situation moved, or the text is too long.
    if (error.code === 'not_found') return bounce('not_member', token, user);
    if (error.code === 'invalid_parent') return bounce('message_gone', token, user);
    if (error.code === 'text_too_long') return bounce('too_long', token, user, message.id);
    if (error.code === 'empty_message') return bounce('empty', token, user, message.id);
    throw error;
  }
}

/** An attachment that claims to be a picture; its bytes decide (the upload pipeline sniffs them). */
function isImage(attachment: Attachment): boolean {
  return attachment.contentType.toLowerCase().startsWith('image/') && attachment.size > 0;
}

/**
 * A photo through the upload pipeline of POST /api/files (type sniffed, size limit, cleaned and
 * stored), not yet recorded; null for what is not an accepted picture (skipped), 'too_big' past
 * the instance's image limit.
 */
async function receivePhoto(
  ctx: AppContext,
  user: UserRow,
  attachment: Attachment,
): Promise<ReceivedUpload | null | 'too_big'> {
  try {
    const upload = await receiveUpload(ctx, user, Readable.from([attachment.content]), attachment.filename);
    if (upload.row.kind === 'image') return upload;
    await discardUpload(ctx, upload);
    return null;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'file_too_large') return 'too_big';
    if (error instanceof ApiError) return null; // not a picture Kith takes, or images turned off
    throw error;
  }
}

/** Reads a stream whole, keeping at most `limit + 1` bytes (the rest is read and counted). */
async function readLimited(stream: Readable, limit: number): Promise<{ bytes: Buffer; size: number }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    if (kept <= limit) {
      chunks.push(buffer);
      kept += buffer.length;
    }
  }
  return { bytes: Buffer.concat(chunks), size };
}

/** The header block of a raw mail (up to its first empty line, at most 256 KiB). */
function headOf(bytes: Buffer): Buffer {
  const head = bytes.subarray(0, 256 * 1024);
  const crlf = head.indexOf('\r\n\r\n');
  const lf = head.indexOf('\n\n');
  const end = [crlf, lf].filter((i) => i >= 0).sort((a, b) => a - b)[0];
  return end === undefined ? head : head.subarray(0, end + 2);
}

function headerLookup(parsed: ParsedMail): HeaderLookup {
  return (name) =>
    parsed.headerLines
      .filter((line) => line.key === name)
      .map((line) =>
        line.line
          .slice(line.line.indexOf(':') + 1)
          .replace(/\r?\n[ \t]+/g, ' ')
          .trim(),
      );
}

const ADDRESS = /[^\s<>,;:"()[\]]+@[^\s<>,;:"()[\]]+/g;

/** RCPT TO when given; else the headers a pipe delivery leaves (Delivered-To, X-Original-To, To, Cc). */
function recipientsOf(envelope: Envelope, header: HeaderLookup): string[] {
  if (envelope.recipients !== undefined && envelope.recipients.length > 0) return envelope.recipients;
  return ['delivered-to', 'x-original-to', 'to', 'cc'].flatMap((name) =>
    header(name).flatMap((value) => value.match(ADDRESS) ?? []),
  );
}

/** Where a bounce goes: the envelope sender, else Return-Path, else From; null when none is usable. */
function senderOf(parsed: ParsedMail, envelope: Envelope): string | null {
  const candidates = [
    envelope.sender,
    parsed.headerLines.find((l) => l.key === 'return-path')?.line.match(ADDRESS)?.[0],
    parsed.from?.value[0]?.address,
  ];
  return candidates.find((c): c is string => typeof c === 'string' && c.includes('@')) ?? null;
}
