import { Fragment } from 'react';
import { Link } from 'react-router';
import { splitHashtags } from '../search/hashtags';
import { searchPath } from '../search/query';
import { shortenLinkText, splitLinks } from './links';

/** Plain text with its #hashtags linked to their search in the group (none without a group). */
function TextWithHashtags({ text, groupId }: { text: string; groupId: string | undefined }) {
  if (groupId === undefined) return text;
  return splitHashtags(text).map((part, index) => {
    if (part.type === 'text') return <Fragment key={index}>{part.text}</Fragment>;
    const to = searchPath(groupId, '', part.tag);
    return to === null ? `#${part.tag}` : <Link key={index} to={to}>{`#${part.tag}`}</Link>;
  });
}

/**
 * Message text with its links clickable and long link texts shortened (product spec §9). With a
 * `groupId`, hashtags link to that group's search; public pages give none, as they have no group.
 */
export function RichText({ text, className, groupId }: { text: string; className?: string; groupId?: string }) {
  return (
    <div className={className}>
      {splitLinks(text).map((part, index) =>
        part.type === 'text' ? (
          <TextWithHashtags key={index} text={part.text} groupId={groupId} />
        ) : (
          <a key={index} href={part.url} target="_blank" rel="noopener noreferrer nofollow" title={part.url}>
            {shortenLinkText(part.url)}
          </a>
        ),
      )}
    </div>
  );
}
