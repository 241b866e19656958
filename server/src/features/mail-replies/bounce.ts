import type { Config } from '../../config.js';
import { renderMailBody } from '../../mail/layout.js';
import type { MailDraft } from '../../mail/queue.js';
import { mailLanguage, translator } from '../../mail/texts.js';

/** Why a reply was refused with a bounce (docs/api §11.11); each has its sentence in `mail.reply`. */
export type BounceReason =
  | 'unknown_address'
  | 'expired'
  | 'not_member'
  | 'message_gone'
  | 'wrong_sender'
  | 'rate_limited'
  | 'too_big'
  | 'empty'
  | 'too_long';

/**
 * The short mail that tells the sender why their reply was not posted, in the account's language
 * (the instance's when the address names no account). `Auto-Submitted: auto-replied` keeps mail
 * programs and other robots from answering it, and Kith drops it if it ever comes back.
 */
export function bounceMail(
  config: Pick<Config, 'publicUrl' | 'defaultLang' | 'mailReplies'>,
  to: string,
  reason: BounceReason,
  options: { lang: string | null; originalMessageId: string | null; messageUrl: string | null },
): MailDraft {
  const lang = mailLanguage(options.lang, config.defaultLang);
  const t = translator(lang);
  const subject = t('reply.bounce_subject');
  const maxMb = Math.round((config.mailReplies?.maxBytes ?? 0) / (1024 * 1024));
  const { html, text } = renderMailBody({
    lang,
    preview: subject,
    blocks: [
      { kind: 'paragraph', text: t('reply.bounce_intro') },
      { kind: 'paragraph', text: t(`reply.reason_${reason}`, { size: `${maxMb} MB` }) },
      { kind: 'paragraph', text: t('reply.bounce_advice') },
      { kind: 'button', label: t('digest_open'), url: options.messageUrl ?? `${config.publicUrl}/` },
    ],
    footer: [{ text: t('footer_automatic') }, { text: t('footer_sent_by', { site: config.publicUrl }) }],
  });
  const thread: Record<string, string> =
    options.originalMessageId === null
      ? {}
      : { 'In-Reply-To': options.originalMessageId, References: options.originalMessageId };
  return {
    kind: 'reply-bounce',
    to,
    subject,
    text,
    html,
    headers: { 'Auto-Submitted': 'auto-replied', ...thread },
  };
}
