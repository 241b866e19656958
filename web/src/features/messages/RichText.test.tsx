import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { RichText } from './RichText';

afterEach(cleanup);

const TEXT = 'Photos of #Noël at https://example.org/#anchor and #cake.';

describe('RichText', () => {
  it('links hashtags to the search of the group, not the fragment of a URL', () => {
    render(
      <MemoryRouter>
        <RichText text={TEXT} groupId="g1" />
      </MemoryRouter>,
    );
    expect(screen.getByRole('link', { name: '#Noël' }).getAttribute('href')).toBe('/groups/g1/search?hashtags=Noel');
    expect(screen.getByRole('link', { name: '#cake' }).getAttribute('href')).toBe('/groups/g1/search?hashtags=cake');
    expect(screen.getByRole('link', { name: 'https://example.org/#anchor' }).getAttribute('href')).toBe(
      'https://example.org/#anchor',
    );
    expect(screen.getAllByRole('link')).toHaveLength(3);
  });

  it('links no hashtag without a group (public pages)', () => {
    const { container } = render(
      <MemoryRouter>
        <RichText text={TEXT} />
      </MemoryRouter>,
    );
    expect(screen.getAllByRole('link').map((link) => link.textContent)).toEqual(['https://example.org/#anchor']);
    expect(container.textContent).toBe(TEXT);
  });

  describe('light formatting (common/src/markup.ts)', () => {
    const show = (text: string) =>
      render(
        <MemoryRouter>
          <RichText text={text} groupId="g1" />
        </MemoryRouter>,
      ).container;

    it('renders bold, italic, lists, quotes and links as elements', () => {
      const container = show(
        'Hi **all** and _you_\n- one\n- *two*\n3. three\n> quoted [the site](https://example.org/a_(b)) #tag',
      );
      expect(container.querySelector('strong')?.textContent).toBe('all');
      expect([...container.querySelectorAll('em')].map((em) => em.textContent)).toEqual(['you', 'two']);
      expect([...container.querySelectorAll('ul > li')].map((li) => li.textContent)).toEqual(['one', 'two']);
      const ol = container.querySelector('ol');
      expect(ol?.getAttribute('start')).toBe('3');
      expect(ol?.textContent).toBe('three');
      const quote = container.querySelector('blockquote');
      expect(quote?.textContent).toBe('quoted the site #tag');
      const link = screen.getByRole('link', { name: 'the site' });
      expect(link.getAttribute('href')).toBe('https://example.org/a_(b)');
      expect(link.getAttribute('rel')).toBe('noopener noreferrer nofollow ugc');
      expect(link.getAttribute('target')).toBe('_blank');
      expect(screen.getByRole('link', { name: '#tag' }).getAttribute('href')).toBe('/groups/g1/search?hashtags=tag');
      expect(container.textContent).not.toContain('*');
    });

    it('never renders HTML written in a message', () => {
      const text = '<img src=x onerror=alert(1)> **<script>alert(2)</script>** <a href="javascript:alert(3)">x</a>';
      const container = show(text);
      expect(container.querySelector('img, script, a[href^="javascript"]')).toBeNull();
      expect(container.querySelector('strong')?.textContent).toBe('<script>alert(2)</script>');
      expect(container.textContent).toBe(text.replaceAll('**', ''));
    });

    it('keeps links to other schemes as text', () => {
      const text = '[click](javascript:alert(1)) [data](data:text/html,hi) [mail](mailto:ann@example.org)';
      const container = show(text);
      expect(screen.getAllByRole('link').map((a) => a.getAttribute('href'))).toEqual(['mailto:ann@example.org']);
      expect(container.textContent).toBe('[click](javascript:alert(1)) [data](data:text/html,hi) mail');
    });

    it('keeps unclosed markers, arithmetic and snake_case as typed', () => {
      const text = '**open 2*3*4 snake_case_words';
      expect(show(text).textContent).toBe(text);
      expect(document.querySelector('strong, em')).toBeNull();
    });
  });
});
