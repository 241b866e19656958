import { formatList, type Notification } from '@kith/common';
import type { TFunction } from '../../lib/i18n';
import { truncate } from '../messages/links';
import type { NotificationEntry } from './collapse';

const TITLE_MAX = 50; // product spec §9: notification titles are cut to 50 characters

/** The sentence shown for a notification, in the interface language. */
export function notificationText(t: TFunction, n: Notification): string {
  const name = n.fromUser?.name ?? t('notifications.someone');
  const group = n.fromGroup?.name ?? '';
  const title = truncate(n.title, TITLE_MAX);
  switch (n.type) {
    case 'new_message':
      return title
        ? t('notifications.new_message', { name, group, title })
        : t('notifications.new_message_untitled', { name, group });
    case 'new_comment':
      return title
        ? t('notifications.new_comment', { name, group, title })
        : t('notifications.new_comment_untitled', { name, group });
    case 'user_joined_group':
      return t('notifications.user_joined_group', { name, group });
    case 'user_left_group':
      return t('notifications.user_left_group', { name, group });
    case 'group_name_change':
      return t('notifications.group_name_change', {
        name,
        previous: n.data.previousGroupName ?? '',
        next: n.data.newGroupName ?? group,
      });
    case 'global_notification':
      return n.data.text ?? '';
    case 'new_reaction':
      return title
        ? t('reactions.notification', { name, group, title })
        : t('reactions.notification_untitled', { name, group });
    case 'mention':
      return title
        ? t('mentions.notification', { name, group, title })
        : t('mentions.notification_untitled', { name, group });
  }
}

/**
 * The sentence shown for a panel entry: a notification's own, or for comments by several people
 * on one message "Bob and Alice commented on …", "Bob and 3 others commented on …".
 */
export function entryText(t: TFunction, lang: string, { lead, people }: NotificationEntry): string {
  if (lead.type !== 'new_comment' || people.length < 2) return notificationText(t, lead);
  const someone = t('notifications.someone');
  const name = people[0] ?? someone;
  const group = lead.fromGroup?.name ?? '';
  const title = truncate(lead.title, TITLE_MAX);
  const untitled = title ? '' : '_untitled';
  if (people.length === 2)
    return t(`notifications.new_comment_two${untitled}`, {
      names: formatList(lang, [name, people[1] ?? someone], (first, second) => t('common.list_two', { first, second })),
      group,
      title,
    });
  return t(`notifications.new_comment_others${untitled}`, { name, count: people.length - 1, group, title });
}

/** Where a notification leads: the message (and reply), the group, or the announced link. */
export function notificationLink(n: Notification): string | null {
  switch (n.type) {
    case 'new_message':
      return n.target ? `/messages/${n.target}` : null;
    case 'new_comment':
      return n.fromMessage && n.target ? `/messages/${n.fromMessage.id}/${n.target}` : null;
    case 'user_joined_group':
    case 'user_left_group':
    case 'group_name_change':
      return n.target ? `/groups/${n.target}` : null;
    case 'global_notification':
      return n.target;
    case 'new_reaction':
    case 'mention':
      // A reaction to (or a mention in) a reply names the reply's parent, as new_comment does: the
      // thread opens there.
      if (!n.target) return null;
      return n.fromMessage && n.fromMessage.id !== n.target
        ? `/messages/${n.fromMessage.id}/${n.target}`
        : `/messages/${n.target}`;
  }
}
