import { Fragment, useMemo, type ReactNode } from 'react';
import { Link } from 'react-router';
import { parseMarkup, type MarkupBlock, type MarkupInline, type Mention } from '@kith/common';
import { splitMentions } from '../mentions/mentions';
import { splitHashtags } from '../search/hashtags';
import { searchPath } from '../search/query';
import { shortenLinkText } from './links';
import styles from './RichText.module.css';

/** Plain text with its #hashtags linked to their search in the group (none without a group). */
function TextWithHashtags({ text, groupId }: { text: string; groupId: string | undefined }) {
  if (groupId === undefined) return text;
  return splitHashtags(text).map((part, index) => {
    if (part.type === 'text') return <Fragment key={index}>{part.text}</Fragment>;
    const to = searchPath(groupId, '', part.tag);
    return to === null ? `#${part.tag}` : <Link key={index} to={to}>{`#${part.tag}`}</Link>;
  });
}

/** What decorates a text's plain runs: hashtag links and @mentions. */
interface Decor {
  groupId: string | undefined;
  mentions: readonly Mention[];
  meId: string | undefined;
}

/**
 * Plain text with its @mentions shown under the person's current name, highlighted (more strongly
 * for the reader's own), and the rest with its hashtags linked. Only text nodes: nothing is HTML.
 */
function TextPieces({ text, decor }: { text: string; decor: Decor }) {
  return splitMentions(text, decor.mentions).map((part, index) =>
    part.type === 'text' ? (
      <TextWithHashtags key={index} text={part.text} groupId={decor.groupId} />
    ) : (
      <span
        key={index}
        className={part.mention.id === decor.meId ? `${styles.mention} ${styles.mentionMe}` : styles.mention}
        data-mention={part.mention.id}
      >
        {`@${part.mention.name}`}
      </span>
    ),
  );
}

// What links written by members say about themselves: opened apart from Kith, with no referrer,
// and not vouched for by the site (user-generated content).
const LINK_REL = 'noopener noreferrer nofollow ugc';

/**
 * The pieces of a line as elements. `groupId` undefined links no hashtag (public pages, and link
 * texts, as a link cannot hold another). Every text goes in as a React text node, so nothing a
 * member writes is ever read as HTML; links are only the http(s) and mailto ones the parser made.
 */
function renderInline(nodes: MarkupInline[], decor: Decor): ReactNode[] {
  return nodes.map((node, index) => {
    switch (node.type) {
      case 'text':
        return <TextPieces key={index} text={node.text} decor={decor} />;
      case 'strong':
        return <strong key={index}>{renderInline(node.children, decor)}</strong>;
      case 'em':
        return <em key={index}>{renderInline(node.children, decor)}</em>;
      case 'link':
        return (
          <a key={index} href={node.href} target="_blank" rel={LINK_REL} title={node.href}>
            {node.bare ? shortenLinkText(node.href) : renderInline(node.children, NO_DECOR)}
          </a>
        );
    }
  });
}

// A link's text holds no other link, and no mention either.
const NO_DECOR: Decor = { groupId: undefined, mentions: [], meId: undefined };

function renderBlocks(blocks: MarkupBlock[], decor: Decor): ReactNode[] {
  return blocks.map((block, index) => {
    switch (block.type) {
      case 'paragraph': {
        // Blank lines stay as typed (the text keeps its line breaks); one that ends a paragraph
        // before a list or quote needs one more break to show, as the last break of a block does not.
        const last = block.children.at(-1);
        const blankEnd = last === undefined || (last.type === 'text' && last.text.endsWith('\n'));
        return (
          <p key={index} className={styles.paragraph}>
            {renderInline(block.children, decor)}
            {blankEnd && index < blocks.length - 1 ? '\n' : null}
          </p>
        );
      }
      case 'list': {
        const items = block.items.map((item, n) => <li key={n}>{renderInline(item, decor)}</li>);
        return block.ordered ? (
          <ol key={index} className={styles.list} start={block.start === 1 ? undefined : block.start}>
            {items}
          </ol>
        ) : (
          <ul key={index} className={styles.list}>
            {items}
          </ul>
        );
      }
      case 'quote':
        return (
          <blockquote key={index} className={styles.quote}>
            {renderBlocks(block.children, decor)}
          </blockquote>
        );
    }
  });
}

/**
 * Message text with its light formatting (common/src/markup.ts: bold, italic, lists, quotes,
 * links), its links clickable and long link texts shortened (product spec §9). With a `groupId`,
 * hashtags link to that group's search; public pages give none, as they have no group. Its
 * `mentions` (issue 21) show as `@<current name>`, the reader's own (`meId`) more strongly.
 */
export function RichText({
  text,
  className,
  groupId,
  mentions = [],
  meId,
}: {
  text: string;
  className?: string;
  groupId?: string;
  mentions?: readonly Mention[];
  meId?: string;
}) {
  const blocks = useMemo(() => parseMarkup(text), [text]);
  return <div className={className}>{renderBlocks(blocks, { groupId, mentions, meId })}</div>;
}
