import type { NotificationEmailFrequency } from '@kith/common';
import type { Config } from '../../config.js';
import { renderMailBody, type Block } from '../../mail/layout.js';
import type { MailDraft } from '../../mail/queue.js';
import { mailLanguage, translator } from '../../mail/texts.js';
import type { UserRow } from '../../db/rows.js';

/** One new post or comment in a digest. */
export interface DigestItem {
  groupId: string;
  groupName: string;
  kind: 'post' | 'comment' | 'mention';
  /** The notification's resolved title (docs/api §2.7); may be empty. */
  title: string;
  /** null once the author's account is gone. */
  author: string | null;
  url: string;
  /** A signed picture URL that loads without a login, or null. */
  imageUrl: string | null;
  /** Where a reply by e-mail about this item goes (docs/api §11.11), or null when the feature is off. */
  replyAddress?: string | null;
}

/** The frequencies that send mails: the scheduled digests' and `immediately`. */
export type MailFrequency = Exclude<NotificationEmailFrequency, 'none'>;

export interface DigestContent {
  frequency: MailFrequency;
  /** Mentions mailed on their own (`mention_emails: immediately`, docs/api §11.10). */
  mentionsOnly?: boolean;
  /** Listed items, newest first; `total` counts the ones left out as well. */
  items: DigestItem[];
  total: number;
  unsubscribe: { page: string; api: string };
}

/**
 * The digest e-mail (docs/api §10.8): the new posts and comments grouped by group, each linking to
 * its message, then the unsubscribe link, which also goes into the RFC 8058 one-click headers. An
 * immediate mail is the same mail with a subject and an opening line about what just happened.
 */
export function digestMail(
  config: Pick<Config, 'publicUrl' | 'defaultLang'>,
  user: Pick<UserRow, 'login' | 'name' | 'lang'>,
  content: DigestContent,
): MailDraft {
  const lang = mailLanguage(user.lang, config.defaultLang);
  const t = translator(lang);
  const immediate = content.frequency === 'immediately';
  const [only] = content.items;
  // One mention alone says who and where ("Ben mentioned you in “Picnic”").
  const subject =
    content.total === 1 && only?.kind === 'mention' && only.author !== null
      ? only.title.trim() === ''
        ? t('mention.subject_untitled', { author: only.author })
        : t('mention.subject', { author: only.author, title: only.title })
      : t(immediate ? 'immediate_subject' : 'digest_subject', { count: content.total });

  const blocks: Block[] = [
    { kind: 'paragraph', text: t('greeting', { name: user.name }) },
    { kind: 'paragraph', text: t(immediate ? 'immediate_intro' : 'digest_intro') },
  ];
  // Reply by e-mail (docs/decisions.md): the mail's Reply-To is the first listed item's address; when
  // the mail is about several messages, each item also gets a link of its own.
  const replyAddresses = [...new Set(content.items.map((item) => item.replyAddress ?? null))];
  const replyTo = content.items[0]?.replyAddress ?? null;
  const linkEachItem = replyTo !== null && replyAddresses.length > 1;
  // Groups in the order of their newest item; items newest first within a group.
  const groups = new Map<string, DigestItem[]>();
  for (const item of content.items) {
    const list = groups.get(item.groupId) ?? [];
    list.push(item);
    groups.set(item.groupId, list);
  }
  for (const items of groups.values()) {
    blocks.push({ kind: 'heading', text: items[0]?.groupName ?? '' });
    for (const item of items) {
      const detail =
        item.kind === 'mention'
          ? item.author === null
            ? t('mention.detail_anonymous')
            : t('mention.detail', { author: item.author })
          : item.author === null
            ? t(item.kind === 'post' ? 'digest_post' : 'digest_comment')
            : t(item.kind === 'post' ? 'digest_post_by' : 'digest_comment_by', { author: item.author });
      blocks.push({
        kind: 'item',
        title: item.title.trim() === '' ? t('digest_no_title') : item.title,
        url: item.url,
        detail,
        imageUrl: item.imageUrl,
        reply:
          linkEachItem && item.replyAddress !== undefined && item.replyAddress !== null
            ? { label: t('reply.item_link'), url: replyMailto(item.replyAddress, item.title) }
            : null,
      });
    }
  }
  const more = content.total - content.items.length;
  if (more > 0) blocks.push({ kind: 'paragraph', text: t('digest_more', { count: more }), muted: true });
  blocks.push({ kind: 'button', label: t('digest_open'), url: `${config.publicUrl}/` });
  if (replyTo !== null)
    blocks.push({ kind: 'paragraph', text: t(linkEachItem ? 'reply.hint_several' : 'reply.hint_single'), muted: true });

  const { html, text } = renderMailBody({
    lang,
    preview: subject,
    blocks,
    footer: [
      {
        text:
          content.mentionsOnly === true
            ? t('mention.why')
            : t('digest_why', { frequency: t(`frequency_${content.frequency}`) }),
        link: { label: t('digest_unsubscribe'), url: content.unsubscribe.page },
      },
      { text: t('footer_sent_by', { site: config.publicUrl }) },
    ],
  });
  return {
    kind: immediate ? 'immediate' : 'digest',
    to: user.login,
    subject,
    text,
    html,
    headers: {
      'List-Unsubscribe': `<${content.unsubscribe.api}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      ...(replyTo === null ? {} : { 'Reply-To': replyTo }),
    },
  };
}

/** A `mailto:` link to a reply address, with the subject a mail program would write. */
function replyMailto(address: string, title: string): string {
  const subject = title.trim() === '' ? 'Re: Kith' : `Re: ${title.trim().slice(0, 120)}`;
  return `mailto:${address}?subject=${encodeURIComponent(subject)}`;
}
