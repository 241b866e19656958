import { Fragment } from 'react';
import { shortenLinkText, splitLinks } from './links';

/** Message text with its links clickable and long link texts shortened (product spec §9). */
export function RichText({ text, className }: { text: string; className?: string }) {
  return (
    <div className={className}>
      {splitLinks(text).map((part, index) =>
        part.type === 'text' ? (
          <Fragment key={index}>{part.text}</Fragment>
        ) : (
          <a key={index} href={part.url} target="_blank" rel="noopener noreferrer nofollow" title={part.url}>
            {shortenLinkText(part.url)}
          </a>
        ),
      )}
    </div>
  );
}
