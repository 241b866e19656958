import { describe, expect, it } from 'vitest';
import {
  blocksPlainText,
  isSafeHref,
  markupLinks,
  parseMarkup,
  plainText,
  type MarkupBlock,
  type MarkupInline,
} from './markup.js';

/** The inline pieces of a one-paragraph text. */
function inline(text: string): MarkupInline[] {
  const blocks = parseMarkup(text);
  expect(blocks).toHaveLength(1);
  const [block] = blocks;
  if (block?.type !== 'paragraph') throw new Error(`not a paragraph: ${JSON.stringify(block)}`);
  return block.children;
}

const t = (text: string): MarkupInline => ({ type: 'text', text });

describe('parseMarkup: emphasis', () => {
  it('reads bold, italic with * or _, and both', () => {
    expect(inline('a **b** *c* _d_ ***e***')).toEqual([
      t('a '),
      { type: 'strong', children: [t('b')] },
      t(' '),
      { type: 'em', children: [t('c')] },
      t(' '),
      { type: 'em', children: [t('d')] },
      t(' '),
      { type: 'strong', children: [{ type: 'em', children: [t('e')] }] },
    ]);
  });

  it('nests different markers', () => {
    expect(inline('**bold *and italic* bold**')).toEqual([
      { type: 'strong', children: [t('bold '), { type: 'em', children: [t('and italic')] }, t(' bold')] },
    ]);
  });

  it('leaves unclosed, spaced and mismatched markers as typed', () => {
    for (const text of ['**not closed', 'a * b * c', '** spaced**', '**a*', 'end*', '*', '**', '***', '_ a _']) {
      expect(inline(text)).toEqual([t(text)]);
    }
  });

  it('keeps arithmetic and snake_case_words as text', () => {
    expect(inline('2*3*4 = 24')).toEqual([t('2*3*4 = 24')]);
    expect(inline('my snake_case_words here')).toEqual([t('my snake_case_words here')]);
    expect(plainText('call do_this_now() or 2*3*4')).toBe('call do_this_now() or 2*3*4');
  });

  it('works inside words of scripts written without spaces', () => {
    expect(inline('这是**重要**的')).toEqual([t('这是'), { type: 'strong', children: [t('重要')] }, t('的')]);
  });

  it('does not cross a line break', () => {
    expect(plainText('*a\nb*')).toBe('*a\nb*');
  });

  it('keeps a run of more than three markers as text', () => {
    expect(inline('a ****b**** c')).toEqual([t('a ****b**** c')]);
  });
});

describe('parseMarkup: links', () => {
  it('reads [text](url) and bare URLs, with markers around them', () => {
    expect(inline('see [the **site**](https://example.org/a_(b)) or **https://example.org/x_y**.')).toEqual([
      t('see '),
      {
        type: 'link',
        href: 'https://example.org/a_(b)',
        bare: false,
        children: [t('the '), { type: 'strong', children: [t('site')] }],
      },
      t(' or '),
      {
        type: 'strong',
        children: [
          { type: 'link', href: 'https://example.org/x_y', bare: true, children: [t('https://example.org/x_y')] },
        ],
      },
      t('.'),
    ]);
  });

  it('leaves underscores and asterisks inside a URL alone', () => {
    const url = 'https://example.org/a_b_c/*x*/y';
    expect(inline(`_${url}_ *${url}*`)).toEqual([
      { type: 'em', children: [{ type: 'link', href: url, bare: true, children: [t(url)] }] },
      t(' '),
      { type: 'em', children: [{ type: 'link', href: url, bare: true, children: [t(url)] }] },
    ]);
  });

  it('keeps links to other schemes as text', () => {
    for (const text of [
      '[x](javascript:alert(1))',
      '[x](data:text/html,hi)',
      '[x](vbscript:y)',
      '[x](/relative)',
      '[](https://e.org)',
    ]) {
      expect(inline(text).some((node) => node.type === 'link' && !node.bare)).toBe(false);
    }
    expect(plainText('[x](javascript:alert(1))')).toBe('[x](javascript:alert(1))');
    expect(isSafeHref('mailto:ann@example.org')).toBe(true);
    expect(isSafeHref('JavaScript:alert(1)')).toBe(false);
  });

  it('takes mailto links', () => {
    expect(inline('[write](mailto:ann@example.org)')).toEqual([
      { type: 'link', href: 'mailto:ann@example.org', bare: false, children: [t('write')] },
    ]);
  });

  it('lists the http(s) targets for link previews, without the closing parenthesis', () => {
    expect(
      markupLinks('[a](https://a.example/x).\n(see https://b.example/y), [m](mailto:x@y.z) https://a.example/x'),
    ).toEqual(['https://a.example/x', 'https://b.example/y']);
  });
});

describe('bare URLs (the rule the web client linked with before formatting)', () => {
  const urls = markupLinks;

  it('finds http and https links up to white space or a square bracket', () => {
    expect(urls('see https://a.example/x?y=1 and http://b.example\nbye')).toEqual([
      'https://a.example/x?y=1',
      'http://b.example',
    ]);
    expect(urls('[https://a.example/p]')).toEqual(['https://a.example/p']);
    expect(urls('https://c.example\tnext')).toEqual(['https://c.example']);
  });

  it('drops trailing sentence punctuation and unbalanced closing parentheses', () => {
    expect(urls('Look: https://a.example/page. Nice!')).toEqual(['https://a.example/page']);
    expect(urls('https://b.example/?!,;:.')).toEqual(['https://b.example/']);
    expect(urls('https://c.example/a.b,c')).toEqual(['https://c.example/a.b,c']);
    expect(urls('(see https://d.example/x)')).toEqual(['https://d.example/x']);
    expect(urls('(https://e.example/x).')).toEqual(['https://e.example/x']);
    expect(urls('https://en.wikipedia.org/wiki/Kith_(word)')).toEqual(['https://en.wikipedia.org/wiki/Kith_(word)']);
  });

  it('does not link a bare scheme', () => {
    expect(urls('https:// and https://.')).toEqual([]);
  });

  it('gives texts with URLs back unchanged as plain text', () => {
    for (const text of [
      '(https://a.example/x), then [http://b.example] https://c.example/(d)).',
      'https://e.example/😀?q=1!\n\nhttp://f.example',
      'x https:// y https://.',
    ]) {
      expect(plainText(text)).toBe(text);
    }
  });
});

describe('parseMarkup: blocks', () => {
  it('reads bulleted and numbered lists, and starts a new list after another line', () => {
    expect(parseMarkup('Buy:\n- milk\n* **eggs**\n\n3. three\n4) four\nend')).toEqual([
      { type: 'paragraph', children: [t('Buy:')] },
      { type: 'list', ordered: false, start: 1, items: [[t('milk')], [{ type: 'strong', children: [t('eggs')] }]] },
      { type: 'paragraph', children: [] },
      { type: 'list', ordered: true, start: 3, items: [[t('three')], [t('four')]] },
      { type: 'paragraph', children: [t('end')] },
    ]);
  });

  it('reads quotes, with lists and quotes inside', () => {
    expect(parseMarkup('> said\n> - a\n> > deeper\nafter')).toEqual([
      {
        type: 'quote',
        children: [
          { type: 'paragraph', children: [t('said')] },
          { type: 'list', ordered: false, start: 1, items: [[t('a')]] },
          { type: 'quote', children: [{ type: 'paragraph', children: [t('deeper')] }] },
        ],
      },
      { type: 'paragraph', children: [t('after')] },
    ]);
  });

  it('keeps >_< and -5 as text', () => {
    expect(plainText('>_< oops\n-5 degrees')).toBe('>_< oops\n-5 degrees');
  });

  it('stops nesting quotes after three levels', () => {
    const deep = '> '.repeat(10_000) + 'x';
    expect(plainText(deep)).toBe(`> > > ${'> '.repeat(9_997)}x`);
  });
});

describe('plainText', () => {
  it('strips markers and spells links out', () => {
    expect(plainText('**Hello** _you_, see [the site](https://example.org) or https://e.org/a_b.')).toBe(
      'Hello you, see the site (https://example.org) or https://e.org/a_b.',
    );
  });

  it('keeps lists, quotes and blank lines readable', () => {
    expect(plainText('Title\n\n* one\n* *two*\n1. first\n> **quoted**\n>\n> more')).toBe(
      'Title\n\n- one\n- two\n1. first\n> quoted\n>\n> more',
    );
  });

  it('gives a text without markup back as it was', () => {
    const text = 'Photos of #Noël at https://example.org/#anchor (2 pm).\n\nSee you!';
    expect(plainText(text)).toBe(text);
    expect(plainText('')).toBe('');
  });

  it('reads a link with its URL as text once', () => {
    expect(plainText('[https://e.org](https://e.org)')).toBe('https://e.org');
  });
});

describe('shortcuts', () => {
  const SAMPLES = [
    'plain words, a URL https://e.org/x. and (https://e.org/y)\n\nSee you',
    '-5 degrees\n2024. a year\n1) one\n  - indented\n>  two spaces\n> \n>_<\n',
    'Windows\r\nline ends',
    '**b** [a](https://a.example/(x)) > not a quote\n> [q](http://q.example) https://b.example/z_\n- HTTPS://C.EXAMPLE',
    '* [m](mailto:a@b.c) text [t](https://d.example)\n1. https://e.example/1*\n> > https://f.example',
  ];

  /** The links of the whole tree, in order. */
  function treeLinks(blocks: MarkupBlock[]): string[] {
    const out: string[] = [];
    const inline = (nodes: MarkupInline[]) => {
      for (const node of nodes) {
        if (node.type === 'link' && /^https?:/i.test(node.href)) out.push(node.href);
        if (node.type !== 'text') inline(node.children);
      }
    };
    for (const block of blocks) {
      if (block.type === 'paragraph') inline(block.children);
      else if (block.type === 'list') block.items.forEach(inline);
      else out.push(...treeLinks(block.children));
    }
    return out;
  }

  it.each(SAMPLES)('plainText of a text without markers is the full parse: %j', (text) => {
    expect(plainText(text)).toBe(blocksPlainText(parseMarkup(text)));
  });

  it.each(SAMPLES)('markupLinks, line by line, finds the links of the full parse: %j', (text) => {
    const all = [...new Set(treeLinks(parseMarkup(text)))];
    expect(markupLinks(text)).toEqual(all);
    expect(markupLinks(text, true)).toEqual(all.slice(0, 1));
  });
});

describe('linear time', () => {
  // Ten times the longest text (50,000 characters): a linear parser reads each in well under a
  // second, a quadratic one would need hours and the test would fail on the project's timeout.
  const size = 500_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length));
  const inputs = [
    '*',
    '_',
    '*a ',
    '**a *b _c ',
    'a*b',
    '[',
    '[a](',
    '[a](https://',
    'https://',
    'http://e.org/(((((',
    '> ',
    '- *a*\n',
    '1. [x](https://e.org) **b**\n',
  ].map(fill);

  it.each(inputs.map((input, index) => [index, input]))('parses input %i', (_index, input) => {
    const plain = plainText(input);
    markupLinks(input);
    expect(plain.length).toBeGreaterThan(size / 3);
  });
});
