import { LIMITS, plainText, type Message, type MessagePreview, type ReactionSummary } from '@kith/common';
import type { AppContext } from '../../context.js';
import { transaction, type Effects, type Tx } from '../../db/transaction.js';
import { Body } from '../../lib/body.js';
import { ApiError, invalidField, missingField, notFound } from '../../lib/errors.js';
import { newOrderedId } from '../../lib/ids.js';
import { currentAuthorName } from '../../search/reindex.js';
import { writeChain, type WriteChain } from '../../db/postgres-chain.js';
import { canPostInGroup } from '../groups/policy.js';
import { queueImmediateMails } from '../notifications/mailing.js';
import { notifyGroupMembers, notifyUsers, type CreatedNotification } from '../notifications/service.js';
import type { FileRow, MessageRow, UserRow } from '../../db/rows.js';
import { emptyMessage, isEmptyMessage, readMessageInput, type MessageInput } from './input.js';
import { mentionsOf, presentMentions, readMentionIds, resolveMentions } from './mentions.js';
import {
  canDeleteMessage,
  canEditMessage,
  canPinMessage,
  canPublishMessage,
  canReadMessage,
  canReplyTo,
} from './policy.js';
import { presentMessage, presentPreview, presentReactions } from './presenter.js';
import {
  childCounts,
  childrenOf,
  countMessageFiles,
  deleteMessageRows,
  deleteNotificationsOfMessages,
  findLinkData,
  findMessage,
  findMessageAndMembership,
  findMessageViews,
  findViewAndMembership,
  findCallerAndMessage,
  findTitleSources,
  findCallerAndPoster,
  findPoster,
  insertMessageQuery,
  lineageOf,
  linkPreviewsOf,
  lockPins,
  makePlaceholder,
  mentionViewsOf,
  previewsOf,
  reactionViewsOf,
  replaceMentions,
  setMessageFiles,
  threadIds,
  touchGroup,
  touchMessagesQuery,
  updateMessageRow,
  type MentionView,
  type MessageExtras,
  type MessageView,
  type Poster,
  type ReactionView,
  type ViewMembershipAndExtras,
} from './queries.js';
import { presentFile, type FileSigner } from '../files/presenter.js';
import { attachableFiles } from '../files/policy.js';
import { callerAlone } from '../auth/authenticate.js';
import { filesOfMessages, findFiles } from '../files/queries.js';
import { queueLinkPreview } from '../links/service.js';
import { firstUrlInText } from '../../lib/urls.js';

const notAuthor = () => new ApiError(403, 'not_author', 'Only the author can do this');
const invalidParent = () =>
  new ApiError(400, 'invalid_parent', 'The parent message is unknown, deleted, or in another group', 'parent');

/**
 * A message the caller can read: it exists and the caller belongs to its group (docs/api §1.8).
 * Anything else is 404, like a message that does not exist.
 */
export async function loadReadableMessage(db: Tx, user: UserRow, id: string | null): Promise<MessageRow> {
  const found = id === null ? undefined : await findMessageAndMembership(db, id, user.id);
  if (found === undefined || !canReadMessage(user, found.message, found.membership)) throw notFound();
  return found.message;
}

/**
 * Files a message may carry (docs/api §1.8, §6.1): each id names a file in status raw or ready that
 * the caller uploaded or that is attached to a message the caller can read. Else `invalid_file`.
 */
async function checkAttachable(tx: Tx, user: UserRow, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const ok = await attachableFiles(tx, user.id, await findFiles(tx, ids));
  const bad = ids.findIndex((id) => !ok.has(id));
  if (bad >= 0) throw new ApiError(400, 'invalid_file', 'A file is unknown or cannot be attached', 'files');
}

/**
 * The reactions of each of `ids` as `viewerId` sees them (issue 20), in one query; none at all while
 * the operator has reactions off (REACTIONS_ENABLED). `users: false` names no one (public view).
 */
export async function reactionSummariesOf(
  ctx: Pick<AppContext, 'config'>,
  db: Tx,
  ids: string[],
  viewerId: string | null,
  options: { users: boolean } = { users: true },
): Promise<Map<string, ReactionSummary[]>> {
  if (!ctx.config.reactions) return new Map();
  const rows = await reactionViewsOf(db, ids);
  return new Map([...rows].map(([id, list]) => [id, presentReactions(list, viewerId, options)]));
}

/**
 * What is known of a message just created, so that its answer reads only what it may have: no
 * children or reactions yet, and files only if it was given some.
 */
interface JustCreated {
  files: number;
  mentions: number;
}

const nothing = <T>(): Promise<T[]> => Promise.resolve([]);
const rowsOf = <T>(read: Promise<Map<string, T[]>>, id: string): Promise<T[]> =>
  read.then((rows) => rows.get(id) ?? []);

/**
 * The rows of a message answer beside its view, read apart (on PostgreSQL a reader's own message
 * comes with them, `findCallerAndMessage`). `created` skips what a message just written
 * cannot have yet; reactions are not read while the operator has them off.
 */
function readExtras(ctx: AppContext, db: Tx, id: string, created: JustCreated | undefined): Promise<MessageExtras> {
  const fresh = created !== undefined;
  return Promise.all([
    fresh ? nothing<string>() : rowsOf(childrenOf(db, [id]), id),
    fresh && created.files === 0 ? nothing<FileRow>() : rowsOf(filesOfMessages(db, [id]), id),
    fresh || !ctx.config.reactions ? nothing<ReactionView>() : rowsOf(reactionViewsOf(db, [id]), id),
    fresh && created.mentions === 0 ? nothing<MentionView>() : rowsOf(mentionViewsOf(db, [id]), id),
  ]).then(([children, files, reactions, mentions]) => ({ children, files, reactions, mentions }));
}

/**
 * The full message answer, with children, for `viewer` (its `can`). `view`: the message's view,
 * when the caller has read it already; `extras`: the rows read with it. `created`: the message was
 * just written by this request, and the reads it cannot need are skipped (a post's answer is part
 * of the cost of posting).
 */
export async function messageAnswer(
  ctx: AppContext,
  id: string,
  viewer: Pick<UserRow, 'id'>,
  options: { view?: MessageView; created?: JustCreated; extras?: MessageExtras } = {},
): Promise<Message> {
  const db = ctx.db.kysely;
  const view = options.view ?? (await findMessageViews(db, [id]))[0];
  if (view === undefined) throw notFound();
  const [extras, linkPreviews] = await Promise.all([
    options.extras ?? readExtras(ctx, db, id, options.created),
    linkPreviewsOf(ctx, db, [view]),
  ]);
  return presentMessage(
    view,
    extras.children,
    extras.files.map((file, index) => presentFile(ctx, file, index)),
    {
      publicLinks: ctx.config.publicLinks,
      linkPreview: linkPreviews.get(id) ?? null,
      viewer,
      reactions: ctx.config.reactions ? presentReactions(extras.reactions, viewer.id, { users: true }) : [],
      mentions: presentMentions(extras.mentions),
    },
  );
}

/**
 * A card answer (docs/api §2.5). `viewerId` null: the card as the live events send it to every
 * member, with no reaction marked as the receiver's.
 */
export async function previewAnswer(
  signer: FileSigner,
  db: Tx,
  id: string,
  viewerId: string | null,
): Promise<MessagePreview> {
  const [view] = await findMessageViews(db, [id]);
  if (view === undefined) throw notFound();
  const [counts, previews, reactions, mentions] = await Promise.all([
    childCounts(db, [id]),
    previewsOf(signer, db, [id]),
    reactionSummariesOf(signer, db, [id], viewerId),
    mentionsOf(db, [id]),
  ]);
  return presentPreview(
    view,
    counts.get(id) ?? 0,
    previews.get(id) ?? null,
    reactions.get(id) ?? [],
    mentions.get(id) ?? [],
  );
}

const plain = (value: string): string => value.replace(/\s+/g, ' ').trim().slice(0, 100);

/**
 * Plain text for notification titles (docs/api §2.7), ≤ 100 characters: the title, else the title
 * or description of the first URL's stored link preview, else the start of the text without its
 * formatting markers (common/src/markup.ts), as digests and other e-mails show it.
 */
async function titleOf(tx: Tx, m: Pick<MessageRow, 'title' | 'text'>): Promise<string> {
  if (m.title !== null && m.title.trim() !== '') return plain(m.title);
  const url = firstUrlInText(m.text);
  if (url !== null) {
    const link = await findLinkData(tx, url);
    const data = link === undefined ? {} : (JSON.parse(link.data) as { title?: unknown; description?: unknown });
    for (const value of [data.title, data.description]) {
      if (typeof value === 'string' && value.trim() !== '') return plain(value);
    }
  }
  return plain(plainText(m.text ?? ''));
}

/**
 * The notification title for a message (docs/api §2.7): the title of the nearest ancestor-or-self
 * shown on the group page.
 */
export async function notificationTitle(tx: Tx, message: MessageRow): Promise<string> {
  // A message on the group page is its own nearest: nothing to read (every new post).
  if (message.is_in_front === 1) return titleOf(tx, message);
  const chain = [message.id, ...lineageOf(message)];
  const rows = await findTitleSources(tx, chain);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const front = chain.map((id) => byId.get(id)).find((r) => r?.is_in_front === 1);
  return front === undefined ? '' : titleOf(tx, front);
}

/** What a post asks for, as its body says it: checked before anything is read. */
interface PostRequest {
  groupId: string;
  data: NonNullable<MessageInput['data']>;
  files: string[];
  mentionIds: string[] | undefined;
  rawParent: string | undefined;
}

function readPost(body: Body): PostRequest {
  const groupId = body.id('group');
  if (groupId === undefined || groupId === '') throw missingField('group', 'The group is required');
  if (groupId === 'invalid') throw invalidField('group', 'The group must be a group id');
  const input = readMessageInput(body);
  return {
    groupId,
    data: input.data ?? { title: null, text: null, noEmbed: null },
    files: input.files ?? [],
    mentionIds: readMentionIds(body),
    rawParent: body.id('parent'),
  };
}

/**
 * Who posts: the caller the authentication hook read, or (PostgreSQL, `withKey` in http/route.ts)
 * the hash of the request's key, whose user the post's first statement reads, and `accept`, which
 * settles the caller as the hook would (features/auth/authenticate.ts, `callerOfKey`).
 */
type PostCaller = { user: UserRow } | { keyHash: string; accept: (user: UserRow | undefined) => UserRow };

/** The poster and their membership: first in the post's transaction, 401 before anything else. */
async function readPoster(
  ctx: AppContext,
  tx: Tx,
  groupId: string,
  caller: PostCaller,
): Promise<{ user: UserRow; poster: Poster }> {
  if ('user' in caller) return { user: caller.user, poster: await findPoster(ctx, tx, groupId, caller.user.id) };
  const found = await findCallerAndPoster(tx, caller.keyHash, groupId);
  return { user: caller.accept(found.caller), poster: found.poster };
}

/**
 * POST /api/messages (docs/api §6.1): a post, or a reply at any depth. The thread and the group move
 * up; other members are notified in the same transaction and hear of it live after the commit; the
 * search index follows before the answer.
 */
export async function createMessage(ctx: AppContext, user: UserRow, body: Body): Promise<Message> {
  return writePost(ctx, readPost(body), { user });
}

/**
 * `createMessage` on PostgreSQL for a request with a key, which the authentication hook left unread:
 * the key's user is read in the post's first statement (one round trip fewer, issue 23). A body
 * that cannot be a post still answers 401 first for a key that is not live, as after the hook.
 */
export async function createMessageWithKey(
  ctx: AppContext,
  keyHash: string,
  body: unknown,
  accept: (user: UserRow | undefined) => UserRow,
): Promise<Message> {
  let post: PostRequest;
  try {
    post = readPost(Body.of(body));
  } catch (error) {
    await callerAlone(ctx.db.kysely, keyHash, accept);
    throw error;
  }
  return writePost(ctx, post, { keyHash, accept });
}

async function writePost(ctx: AppContext, post: PostRequest, caller: PostCaller): Promise<Message> {
  const { groupId, data, files, mentionIds, rawParent } = post;
  const created = await transaction(ctx, async (tx, effects) => {
    // The search index holds the author's current name, read (on PostgreSQL under the author's
    // lock, taken shared) before any write, so a concurrent rename cannot leave this message under
    // the old one. On PostgreSQL it comes with the membership, in one round trip.
    const { user, poster } = await readPoster(ctx, tx, groupId, caller);
    if (!canPostInGroup(user, { id: groupId }, poster.membership)) throw notFound();
    let parent: MessageRow | undefined;
    if (rawParent !== undefined && rawParent !== '') {
      parent = rawParent === 'invalid' ? undefined : await findMessage(tx, rawParent);
      if (parent === undefined || !canReplyTo(parent, groupId)) throw invalidParent();
    }
    await checkAttachable(tx, user, files);
    if (isEmptyMessage(data.title, data.text, files.length)) throw emptyMessage();
    const { authorName } = poster;
    // A post from a client that names no one (the 0.5.6 client) costs no mention statement.
    const mentions = mentionIds === undefined ? [] : await resolveMentions(tx, groupId, data.text, mentionIds, []);

    const now = ctx.clock.now();
    const ancestors = parent === undefined ? [] : [parent.id, ...lineageOf(parent)];
    // Time first (docs/decisions.md): successive posts share the last page of every index keyed by
    // message id, where random ids dirtied a page of each per post.
    const id = newOrderedId(now);
    const message: MessageRow = {
      id,
      group_id: groupId,
      author_id: user.id,
      parent_id: parent?.id ?? null,
      root_id: ancestors.at(-1) ?? id,
      lineage: JSON.stringify(ancestors),
      title: data.title,
      text: data.text,
      no_embed: data.noEmbed === null ? null : data.noEmbed ? 1 : 0,
      created_at: now,
      last_activity_date: now,
      is_in_front: parent === undefined ? 1 : 0,
      is_deleted: 0,
      public_token: null,
      pin_order: null,
    };
    // On PostgreSQL the writes whose results nothing reads go with the next statement
    // (db/postgres-chain.ts): a plain post writes everything in the one statement that reads its
    // recipients, the last before its commit unless its recipients get pushes or mails.
    const writes = writeChain(tx);
    await writes.write(insertMessageQuery(tx, message));
    await ctx.search.upsert(tx, [{ id, groupId, title: data.title, text: data.text, authorName }], writes);
    if (files.length > 0 || mentions.length > 0) {
      // Their rows refer to the message's.
      await writes.flush();
      if (files.length > 0) await setMessageFiles(tx, id, files);
      if (mentions.length > 0) await replaceMentions(tx, id, mentions);
    }
    // Its card picture, without files, is the preview of its first URL: a job of this transaction,
    // queued before the group's row is locked below.
    if (files.length === 0) await queueLinkPreview(ctx, tx, effects, data.text);
    // This locks the thread's rows until the commit on PostgreSQL: every reply to the thread waits
    // for that lock, so it goes in the transaction's last statements, not its first (bench/README.md,
    // posting on PostgreSQL). A reply moves its whole thread up on the group page (docs/api §10.2).
    // The group moves up in the schema's trigger (migrations 0028, 0029); on PostgreSQL at the
    // commit, where every post to the group waits for it for the commit only.
    if (ancestors.length > 0) await writes.write(touchMessagesQuery(tx, ancestors, now));
    // The members' notifications, then the post or reply itself: the order their live events go in.
    const mentioned = new Set(mentions.map((m) => m.userId));
    await notifyNewMessage(ctx, tx, effects, writes, user, message, parent, now, mentioned);
    effects.publish({ type: parent === undefined ? 'message' : 'comment', groupId, messageId: id });
    await writes.flush();
    // What the answer shows of the message, when all of it is known here (PostgreSQL): no read.
    const view: MessageView | undefined =
      poster.groupName === undefined || poster.groupName === null
        ? undefined
        : { ...message, group_name: poster.groupName, author_name: authorName, author_avatar_id: user.avatar_id };
    return { message, view, mentions: mentions.length, user };
  });
  return messageAnswer(ctx, created.message.id, created.user, {
    view: created.view,
    created: { files: files.length, mentions: created.mentions },
  });
}

/**
 * `new_message` or `new_comment` for every other member (docs/api §10.1), written in the message's
 * own transaction: one commit per post, and a rolled-back message leaves no notification behind.
 * The members it mentions get one `mention` instead (docs/api §11.10), never both.
 */
async function notifyNewMessage(
  ctx: AppContext,
  tx: Tx,
  effects: Effects,
  writes: WriteChain,
  author: UserRow,
  message: MessageRow,
  parent: MessageRow | undefined,
  now: number,
  mentioned: ReadonlySet<string>,
): Promise<CreatedNotification[]> {
  const type = parent === undefined ? 'new_message' : 'new_comment';
  const about = await notificationAbout(tx, author, message, parent);
  const created = await notifyGroupMembers(
    tx,
    effects,
    message.group_id,
    author.id,
    { type, ...about },
    now,
    mentioned,
    writes,
  );
  // Members on `immediately` hear of it by mail a couple of minutes later, with what follows.
  await queueImmediateMails(ctx, tx, effects, type, created);
  await notifyMentioned(ctx, tx, effects, author, [...mentioned], about, now);
  return created;
}

/** What a notification of a new message or comment (or a mention in it) points at. */
interface NotificationAbout {
  target: string;
  fromUserId: string;
  fromGroupId: string;
  fromMessageId: string;
  title: string;
}

/** The target, sender, group, thread and title a notification of `message` carries. */
async function notificationAbout(
  tx: Tx,
  author: UserRow,
  message: MessageRow,
  parent: MessageRow | undefined,
): Promise<NotificationAbout> {
  const fromMessage = parent ?? message;
  return {
    target: message.id,
    fromUserId: author.id,
    fromGroupId: message.group_id,
    fromMessageId: fromMessage.id,
    title: await notificationTitle(tx, fromMessage),
  };
}

/**
 * A `mention` for each of `userIds` but the author (nobody is notified of mentioning themselves),
 * whether or not they follow the thread; their mail follows their `mention_emails` choice.
 */
async function notifyMentioned(
  ctx: AppContext,
  tx: Tx,
  effects: Effects,
  author: UserRow,
  userIds: string[],
  about: NotificationAbout,
  now: number,
): Promise<void> {
  const recipients = userIds.filter((id) => id !== author.id);
  if (recipients.length === 0) return;
  const created = await notifyUsers(tx, effects, recipients, { type: 'mention', ...about }, now);
  await queueImmediateMails(ctx, tx, effects, 'mention', created);
}

/**
 * The mentions of an edited message (docs/api §11.10): `requested` ids as for a new message, or
 * (undefined, the 0.5.6 client editing) the stored ones still written in the text. Only the people
 * newly mentioned are notified.
 */
async function updateMentions(
  ctx: AppContext,
  tx: Tx,
  effects: Effects,
  author: UserRow,
  message: MessageRow,
  text: string | null,
  requested: string[] | undefined,
  now: number,
): Promise<void> {
  const stored = (await mentionViewsOf(tx, [message.id])).get(message.id) ?? [];
  const next = await resolveMentions(tx, message.group_id, text, requested, stored);
  await replaceMentions(tx, message.id, next);
  const before = new Set(stored.map((m) => m.user_id));
  const added = next.map((m) => m.userId).filter((id) => !before.has(id));
  if (added.length === 0) return;
  const parent = message.parent_id === null ? undefined : await findMessage(tx, message.parent_id);
  const about = await notificationAbout(tx, author, message, parent);
  await notifyMentioned(ctx, tx, effects, author, added, about, now);
}

/** GET /api/messages/{id} */
export async function getMessage(ctx: AppContext, user: UserRow, id: string | null): Promise<Message> {
  if (id === null) throw notFound();
  // On PostgreSQL the route reads the message with its caller instead (`getMessageWithKey`).
  // The view that answers is read with the access check (one statement instead of three).
  const found = await findViewAndMembership(ctx.db.kysely, id, user.id);
  if (found === undefined || !canReadMessage(user, found.message, found.membership)) throw notFound();
  return messageAnswer(ctx, found.message.id, user, { view: found.message });
}

/**
 * GET /api/messages/{id} on PostgreSQL for a request with a key, which the authentication hook left
 * unread (http/route.ts, `withKey`): the key's user, and the message as `getMessage` reads it, in
 * one statement. `accept` settles the caller (features/auth/authenticate.ts, `callerOfKey`), so a
 * key that is not live answers 401 before anything about the message.
 */
export async function getMessageWithKey(
  ctx: AppContext,
  keyHash: string,
  id: string | null,
  accept: (user: UserRow | undefined) => UserRow,
): Promise<Message> {
  if (id === null) {
    await callerAlone(ctx.db.kysely, keyHash, accept);
    throw notFound();
  }
  const { caller, found } = await findCallerAndMessage(ctx.db.kysely, keyHash, id);
  return answerFound(ctx, accept(caller), found);
}

/** The message answer of what PostgreSQL read in one statement, or 404 when `user` may not read it. */
function answerFound(ctx: AppContext, user: UserRow, found: ViewMembershipAndExtras | undefined): Promise<Message> {
  if (found === undefined || !canReadMessage(user, found.message, found.membership)) throw notFound();
  return messageAnswer(ctx, found.message.id, user, { view: found.message, extras: found.extras });
}

/** GET /api/messages/{id}/preview */
export async function getPreview(ctx: AppContext, user: UserRow, id: string | null): Promise<MessagePreview> {
  const message = await loadReadableMessage(ctx.db.kysely, user, id);
  return previewAnswer(ctx, ctx.db.kysely, message.id, user.id);
}

const notPinnable = () =>
  new ApiError(400, 'not_pinnable', 'Only a message shown on the group page can be pinned', 'pinnedInGroup');
const tooManyPins = () =>
  new ApiError(
    409,
    'too_many_pins',
    `A group can have at most ${LIMITS.pinsPerGroup} pinned messages. Unpin one first.`,
    'pinnedInGroup',
  );

/**
 * Pins (`true`) or unpins (`false`) a message in its group (issue 20, as Zusam 0.6.1's
 * `pinnedInGroup`): a new pin goes after the group's others (largest order plus one), within
 * LIMITS.pinsPerGroup. Asking for the state it already has changes nothing. Other members hear of a
 * change through a `pin` event after the commit.
 */
async function setPinned(ctx: AppContext, tx: Tx, effects: Effects, message: MessageRow, pinned: boolean) {
  if ((message.pin_order !== null) === pinned) return;
  if (pinned) {
    if (!canPinMessage(message)) throw notPinnable();
    const pins = await lockPins(tx, message.group_id, ctx.db.dialect === 'postgres');
    if (pins.count >= LIMITS.pinsPerGroup) throw tooManyPins();
    await updateMessageRow(tx, message.id, { pin_order: (pins.maxOrder ?? 0) + 1 });
  } else {
    await updateMessageRow(tx, message.id, { pin_order: null });
  }
  effects.publish({ type: 'pin', groupId: message.group_id, messageId: message.id });
}

/**
 * PUT /api/messages/{id} (docs/api §6.3): edit (`data`, `files`) and publish (`isInFront`) by the
 * author; pin or unpin (`pinnedInGroup`) by any member. Absent keys are unchanged; an edit moves
 * nothing up and notifies no one.
 */
export async function updateMessage(ctx: AppContext, user: UserRow, id: string | null, body: Body): Promise<Message> {
  const input: MessageInput = readMessageInput(body);
  const isInFront = body.boolean('isInFront');
  const pinned = body.boolean('pinnedInGroup');
  const mentionIds = readMentionIds(body);
  // A request that only pins or unpins is any member's; anything more (or nothing at all) is the
  // author's, as before pins existed.
  const pinOnly =
    pinned !== undefined &&
    input.data === undefined &&
    input.files === undefined &&
    isInFront === undefined &&
    mentionIds === undefined;
  const message = await transaction(ctx, async (tx, effects) => {
    const current = await loadReadableMessage(tx, user, id);
    if (pinOnly) {
      await setPinned(ctx, tx, effects, current, pinned);
      return current;
    }
    if (!canEditMessage(user, current)) throw notAuthor();
    if (isInFront === false && current.parent_id === null) {
      throw invalidField('isInFront', 'A top-level post is always shown on the group page');
    }
    if (input.files !== undefined) await checkAttachable(tx, user, input.files);
    const title = input.data !== undefined ? input.data.title : current.title;
    const text = input.data !== undefined ? input.data.text : current.text;
    // Absent `files` means unchanged: the stored ones count.
    const files = input.files?.length ?? (await countMessageFiles(tx, current.id));
    if (isEmptyMessage(title, text, files)) throw emptyMessage();
    // The caller is the author (canEditMessage): their current name, read before any write, as
    // in createMessage. Only an edit of `data` re-indexes.
    const authorName = input.data !== undefined ? await currentAuthorName(ctx, tx, user.id) : null;

    const now = ctx.clock.now();
    const changes: Partial<MessageRow> = {};
    if (input.data !== undefined) {
      changes.title = input.data.title;
      changes.text = input.data.text;
      changes.no_embed = input.data.noEmbed === null ? null : input.data.noEmbed ? 1 : 0;
    }
    let front = current.is_in_front;
    if (isInFront === true && canPublishMessage(user, current)) {
      // Publishing a reply: it shows on the group page, moved up with its group (docs/api §10.2).
      changes.is_in_front = 1;
      changes.last_activity_date = now;
      front = 1;
      await touchGroup(tx, current.group_id, now);
      effects.publish({ type: 'message', groupId: current.group_id, messageId: current.id });
    } else if (isInFront === false && current.is_in_front === 1) {
      // Off the group page, a reply keeps no place among its pinned messages.
      changes.is_in_front = 0;
      changes.pin_order = null;
      front = 0;
    }
    if (Object.keys(changes).length > 0) {
      await updateMessageRow(tx, current.id, changes);
    }
    if (pinned !== undefined) {
      await setPinned(ctx, tx, effects, { ...current, ...changes, is_in_front: front }, pinned);
    }
    if (input.files !== undefined) await setMessageFiles(tx, current.id, input.files);
    // The card picture is recomputed (§10.6): without files, from the first URL of the text.
    if ((input.data !== undefined || input.files !== undefined) && files === 0) {
      await queueLinkPreview(ctx, tx, effects, text);
    }
    if (input.data !== undefined) {
      await ctx.search.upsert(tx, [{ id: current.id, groupId: current.group_id, title, text, authorName }]);
    }
    if (input.data !== undefined || mentionIds !== undefined) {
      await updateMentions(ctx, tx, effects, user, current, text, mentionIds, now);
    }
    return current;
  });
  return messageAnswer(ctx, message.id, user);
}

/**
 * Removes messages for good, with what hangs on them (docs/api §6.4); bookmarks and file
 * attachments (message_files) go by foreign key. Deleting files left attached nowhere 24 hours
 * later belongs to the upload cleanup job, which comes with the media job queue.
 */
async function removeMessages(ctx: AppContext, tx: Tx, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await deleteNotificationsOfMessages(tx, ids);
  await ctx.search.remove(tx, ids);
  await deleteMessageRows(tx, ids);
}

/**
 * DELETE /api/messages/{id} (docs/api §10.3): a post goes with its whole thread; a reply without
 * replies goes, and so do placeholders left without replies above it; a reply with replies becomes
 * a placeholder so other people's answers stay.
 */
export async function deleteMessage(ctx: AppContext, user: UserRow, id: string | null): Promise<void> {
  await transaction(ctx, async (tx) => {
    const message = await loadReadableMessage(tx, user, id);
    if (!canDeleteMessage(user, message)) throw notAuthor();

    if (message.parent_id === null) {
      await removeMessages(ctx, tx, await threadIds(tx, message.id));
      return;
    }

    const children = await childCounts(tx, [message.id]);
    if ((children.get(message.id) ?? 0) > 0) {
      // A placeholder loses its content, bookmarks and files (docs/api §10.3).
      await makePlaceholder(tx, message.id);
      await ctx.search.remove(tx, [message.id]);
      return;
    }

    await removeMessages(ctx, tx, [message.id]);
    // Placeholders left without replies go too, up the chain.
    let parentId: string | null = message.parent_id;
    while (parentId !== null) {
      const parent = await findMessage(tx, parentId);
      if (parent === undefined || parent.is_deleted !== 1) break;
      if ((await childCounts(tx, [parent.id])).get(parent.id) !== 0) break;
      await removeMessages(ctx, tx, [parent.id]);
      parentId = parent.parent_id;
    }
  });
}
