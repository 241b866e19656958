import { Fragment, useMemo, type ReactNode } from 'react';
import { Link } from 'react-router';
import { parseMarkup, type MarkupBlock, type MarkupInline } from '@kith/common';
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

// What links written by members say about themselves: opened apart from Kith, with no referrer,
// and not vouched for by the site (user-generated content).
const LINK_REL = 'noopener noreferrer nofollow ugc';

/**
 * The pieces of a line as elements. `groupId` undefined links no hashtag (public pages, and link
 * texts, as a link cannot hold another). Every text goes in as a React text node, so nothing a
 * member writes is ever read as HTML; links are only the http(s) and mailto ones the parser made.
 */
function renderInline(nodes: MarkupInline[], groupId: string | undefined): ReactNode[] {
  return nodes.map((node, index) => {
    switch (node.type) {
      case 'text':
        return <TextWithHashtags key={index} text={node.text} groupId={groupId} />;
      case 'strong':
        return <strong key={index}>{renderInline(node.children, groupId)}</strong>;
      case 'em':
        return <em key={index}>{renderInline(node.children, groupId)}</em>;
      case 'link':
        return (
          <a key={index} href={node.href} target="_blank" rel={LINK_REL} title={node.href}>
            {node.bare ? shortenLinkText(node.href) : renderInline(node.children, undefined)}
          </a>
        );
    }
  });
}

function renderBlocks(blocks: MarkupBlock[], groupId: string | undefined): ReactNode[] {
  return blocks.map((block, index) => {
    switch (block.type) {
      case 'paragraph': {
        // Blank lines stay as typed (the text keeps its line breaks); one that ends a paragraph
        // before a list or quote needs one more break to show, as the last break of a block does not.
        const last = block.children.at(-1);
        const blankEnd = last === undefined || (last.type === 'text' && last.text.endsWith('\n'));
        return (
          <p key={index} className={styles.paragraph}>
            {renderInline(block.children, groupId)}
            {blankEnd && index < blocks.length - 1 ? '\n' : null}
          </p>
        );
      }
      case 'list': {
        const items = block.items.map((item, n) => <li key={n}>{renderInline(item, groupId)}</li>);
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
            {renderBlocks(block.children, groupId)}
          </blockquote>
        );
    }
  });
}

/**
 * Message text with its light formatting (common/src/markup.ts: bold, italic, lists, quotes,
 * links), its links clickable and long link texts shortened (product spec §9). With a `groupId`,
 * hashtags link to that group's search; public pages give none, as they have no group.
 */
export function RichText({ text, className, groupId }: { text: string; className?: string; groupId?: string }) {
  const blocks = useMemo(() => parseMarkup(text), [text]);
  return <div className={className}>{renderBlocks(blocks, groupId)}</div>;
}
