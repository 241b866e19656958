import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FALLBACK_LANGUAGE, fillLocalized, findText, type Language, type PushPayload } from '@kith/common';
import { LOCALES_DIR } from '../../mail/texts.js';
import { MENTION_TYPE } from './policy.js';
import type { PendingNotification } from './queries.js';

/**
 * What a push says (docs/api §11.9): for one notification the sentence the app's list shows, under
 * the group's name, opening the message; for several, how many there are and where. In the
 * recipient's language, from the `server.push` texts of locales/<lang>.json.
 */

const cache = new Map<Language, Record<string, string>>();

/** The `server.push` texts of one language, read once. */
function pushTexts(lang: Language): Record<string, string> {
  let texts = cache.get(lang);
  if (texts === undefined) {
    try {
      const file = JSON.parse(readFileSync(path.join(LOCALES_DIR, `${lang}.json`), 'utf8')) as {
        server?: { push?: Record<string, string> };
      };
      texts = file.server?.push ?? {};
    } catch (error) {
      if (lang === FALLBACK_LANGUAGE) throw error;
      // A missing translation file: the push goes out in English rather than not at all.
      texts = {};
    }
    cache.set(lang, texts);
  }
  return texts;
}

/** A `server.push` text in `lang` (else en_US), plural form chosen by `count`, placeholders filled. */
export function pushText(lang: Language, key: string, params: Record<string, string | number> = {}): string {
  const count = typeof params.count === 'number' ? params.count : undefined;
  const text = findText(lang, key, count, (code, name) => pushTexts(code as Language)[name]);
  if (text === undefined) throw new Error(`Missing push text "${key}"`);
  return fillLocalized(lang, text, params);
}

/** Message titles are cut as in the app's notification list. */
const TITLE_MAX = 50;

function cut(text: string): string {
  const chars = [...text.trim()];
  return chars.length <= TITLE_MAX ? chars.join('') : `${chars.slice(0, TITLE_MAX - 1).join('')}…`;
}

/** Where the tap leads: the message (and the reply), the group, or the announced link. */
export function pushUrl(n: PendingNotification): string {
  switch (n.type) {
    case 'new_message':
      return `/messages/${n.target}`;
    case 'new_comment':
      return n.from_message_id === null ? `/messages/${n.target}` : `/messages/${n.from_message_id}/${n.target}`;
    case 'user_joined_group':
    case 'user_left_group':
    case 'group_name_change':
      return `/groups/${n.target}`;
    case 'global_notification':
      // Announcements may link anywhere; only a path of the app is opened from a push.
      return n.target.startsWith('/') && !n.target.startsWith('//') ? n.target : '/';
    default:
      // Reactions and mentions name the message (target) and, for a reply, its parent.
      return n.from_message_id !== null && n.from_message_id !== n.target
        ? `/messages/${n.from_message_id}/${n.target}`
        : `/messages/${n.target}`;
  }
}

function parseData(text: string): Record<string, string> {
  try {
    const data: unknown = JSON.parse(text);
    return typeof data === 'object' && data !== null ? (data as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The sentence of one notification. */
function sentence(lang: Language, n: PendingNotification): string {
  const name = n.from_user_name ?? pushText(lang, 'someone');
  const title = cut(n.title);
  const titled = (key: string) =>
    title === '' ? pushText(lang, `${key}_untitled`, { name }) : pushText(lang, key, { name, title });
  switch (n.type) {
    case 'new_message':
      return titled('new_message');
    case 'new_comment':
      return titled('new_comment');
    case 'new_reaction':
      return titled('new_reaction');
    case MENTION_TYPE:
      return titled('mention');
    case 'user_joined_group':
      return pushText(lang, 'user_joined_group', { name });
    case 'user_left_group':
      return pushText(lang, 'user_left_group', { name });
    case 'group_name_change':
      return pushText(lang, 'group_name_change', { next: parseData(n.data).newGroupName ?? n.from_group_name ?? '' });
    case 'global_notification': {
      const text = parseData(n.data).text ?? '';
      return text === '' ? pushText(lang, 'other') : text;
    }
    default:
      return pushText(lang, 'other');
  }
}

/** The BCP 47 tag of a Kith language code (ko_KR → ko-KR), for the service worker's `lang`. */
export function bcp47(lang: Language): string {
  return lang.replace('_', '-');
}

/**
 * The push for `notifications` (oldest first, at least one): one notification tells itself and
 * replaces an earlier push about the same message (`tag`); several are counted, and replace the
 * earlier count of the same group (or of all groups).
 */
export function buildPayload(lang: Language, notifications: readonly PendingNotification[]): PushPayload {
  const newest = notifications[notifications.length - 1];
  if (newest === undefined) throw new Error('a push needs a notification');
  const groups = new Set(notifications.map((n) => n.from_group_id));
  const [onlyGroup] = groups;
  const oneGroup = groups.size === 1 && onlyGroup !== null && onlyGroup !== undefined;
  const groupName = oneGroup ? (newest.from_group_name ?? '') : '';
  const title = groupName === '' ? 'Kith' : groupName;
  if (notifications.length === 1) {
    const about = newest.from_message_id ?? newest.target;
    return {
      title,
      body: sentence(lang, newest),
      url: pushUrl(newest),
      tag: `kith-${about}`,
      lang: bcp47(lang),
      count: 1,
    };
  }
  const count = notifications.length;
  // A burst about one message (comments on a post) opens that message, at its newest reply.
  const messages = new Set(notifications.map((n) => n.from_message_id ?? n.target));
  const [onlyMessage] = messages;
  const oneMessage = oneGroup && messages.size === 1 && onlyMessage !== undefined;
  return {
    title,
    body: oneGroup
      ? pushText(lang, 'several_in_group', { count, group: groupName })
      : pushText(lang, 'several_in_groups', { count }),
    url: oneMessage ? pushUrl(newest) : oneGroup ? `/groups/${onlyGroup}` : '/',
    tag: oneMessage ? `kith-${onlyMessage}` : oneGroup ? `kith-group-${onlyGroup}` : 'kith-groups',
    lang: bcp47(lang),
    count,
  };
}
