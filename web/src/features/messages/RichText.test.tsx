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
});
