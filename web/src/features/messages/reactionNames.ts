import { formatList, type ReactionSummary } from '@kith/common';
import { useTranslation } from '../../lib/i18n';

/** Who used a reaction, as a list in the reader's language ("Ana, Ben and Cho"). */
export function useReactionNames(): (summary: Pick<ReactionSummary, 'users'>) => string {
  const { t, i18n } = useTranslation();
  return (summary) =>
    formatList(
      i18n.language,
      summary.users.map((u) => u.name),
      (first, second) => t('common.list_two', { first, second }),
    );
}
