/**
 * The rules of reply by e-mail that need no database (docs/api §11.11): which mails are automatic
 * (dropped without a word, so two robots never answer each other), and whose mail a reply is.
 */

/** More `Received` lines than this: a mail going round in circles between servers. */
export const MAX_RECEIVED_HOPS = 30;

/** The header that every mail Kith sends carries (mail/mailer.ts), to know its own mails again. */
export const KITH_MAIL_HEADER = 'x-kith-mail';

/** The headers of a received mail, names lowercased; a repeated header's values in order. */
export type HeaderLookup = (name: string) => string[];

export type DropReason = 'auto_reply' | 'bulk' | 'null_sender' | 'loop';

/**
 * Why a mail must be dropped silently, or null for a mail a person wrote: an auto-reply
 * (`Auto-Submitted` other than `no`, `X-Autoreply`, `X-Autorespond`), a list or bulk mail
 * (`Precedence: bulk|junk|list`), a bounce (an empty or `MAILER-DAEMON` envelope sender, an empty
 * Return-Path), or a loop (a mail Kith sent itself:
 * its header, or a Message-ID of its own form; too many `Received` hops).
 */
export function dropReason(
  header: HeaderLookup,
  envelopeSender: string | null | undefined,
  ownMessageIdDomain: string,
): DropReason | null {
  const first = (name: string) => (header(name)[0] ?? '').trim().toLowerCase();
  if (header(KITH_MAIL_HEADER).length > 0) return 'loop';
  const messageId = first('message-id');
  const ownId = /^<?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@([^>]+)>?$/.exec(messageId);
  if (ownId !== null && ownId[1] === ownMessageIdDomain.toLowerCase()) return 'loop';
  if (header('received').length > MAX_RECEIVED_HOPS) return 'loop';
  const autoSubmitted = first('auto-submitted');
  if (autoSubmitted !== '' && !/^no\b/.test(autoSubmitted)) return 'auto_reply';
  if (header('x-autoreply').length > 0 || header('x-autorespond').length > 0) return 'auto_reply';
  if (/^(bulk|junk|list)\b/.test(first('precedence'))) return 'bulk';
  // The envelope sender of a bounce is empty: so given by the listener, as `MAILER-DAEMON` by
  // Postfix's pipe (its `null_sender`), and as `Return-Path: <>` in the mail by a pipe's R flag.
  if (typeof envelopeSender === 'string' && !envelopeSender.includes('@')) return 'null_sender';
  if (header('return-path').some((value) => /^\s*<\s*>\s*$/.test(value))) return 'null_sender';
  return null;
}

/**
 * True when a reply's From address is the account's login: compared whole and without regard to
 * case (docs/decisions.md), with no other rewriting (no `+tag` or dot removal), so a reply address
 * forwarded to someone else does not let them comment as its owner.
 */
export function isAccountAddress(from: string | null | undefined, login: string): boolean {
  if (from === null || from === undefined) return false;
  return from.trim().toLowerCase() === login.trim().toLowerCase();
}
