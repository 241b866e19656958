import { MENTION_EMAIL_CHOICES, type MentionEmailChoice, type Me } from '@kith/common';
import { useTranslation } from '../../lib/i18n';
import { ChoiceForm } from './ChoicePanels';

/**
 * How mentions are e-mailed (`data.mention_emails`, issue 21): with the other notifications (the
 * default), right away whatever the frequency above, or never. Its own form in the notifications tab.
 */
export function MentionEmailsPanel({ me }: { me: Me }) {
  const { t } = useTranslation();
  const current = me.data.mention_emails;
  const initial = (MENTION_EMAIL_CHOICES as readonly string[]).includes(current ?? '')
    ? (current as MentionEmailChoice)
    : 'with_others';
  return (
    <ChoiceForm
      me={me}
      kind="radios"
      legend={t('mentions.emails_legend')}
      hint={t('mentions.emails_hint')}
      options={MENTION_EMAIL_CHOICES.map((value) => ({ value, label: t(`mentions.emails_${value}`) }))}
      initial={initial}
      changes={(mention_emails) => ({ data: { mention_emails } })}
    />
  );
}
