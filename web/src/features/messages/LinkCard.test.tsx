import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQueryClient, keys } from '../../api/queries';
import type { Info, LinkPreview } from '@kith/common';
import { initI18n } from '../../lib/i18n';
import { embedSource, LinkCard } from './LinkCard';

const URL_ = 'https://video.example/watch/1';

/** The part of /api/info the card reads. */
function info(linkPreviews: boolean): Info {
  return { show: { group_invitation_links: true, public_links: true, link_previews: linkPreviews } } as Info;
}

function renderCard(preview: LinkPreview | undefined, linkPreviews = true) {
  const client = createQueryClient();
  client.setQueryData(keys.info, info(linkPreviews));
  if (preview !== undefined) client.setQueryData(keys.link(URL_), preview);
  return render(
    <QueryClientProvider client={client}>
      <LinkCard url={URL_} />
    </QueryClientProvider>,
  );
}

const base: LinkPreview = {
  id: 'l',
  url: URL_,
  entityType: 'link',
  updatedAt: 1767268800,
  data: { title: 'A tide film', description: 'Waves', origin: URL_ },
  preview: { id: 'p', entityType: 'file' },
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

beforeAll(async () => {
  await initI18n('en_US');
});

describe('embedSource', () => {
  it('keeps only the https src of the server-built iframe', () => {
    expect(embedSource('<iframe src="https://www.youtube-nocookie.com/embed/x" sandbox></iframe>')).toBe(
      'https://www.youtube-nocookie.com/embed/x',
    );
    expect(embedSource('<iframe src="javascript:alert(1)"></iframe>')).toBeNull();
    expect(embedSource('<iframe src="http://insecure.example/"></iframe>')).toBeNull();
    expect(embedSource('<script>alert(1)</script>')).toBeNull();
    expect(embedSource(null)).toBeNull();
  });
});

describe('LinkCard', () => {
  it('asks nothing and shows nothing when the server turned link previews off', async () => {
    const fetch = vi.fn(async () => Response.json({}));
    vi.stubGlobal('fetch', fetch);
    renderCard(undefined, false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fetch).not.toHaveBeenCalled();
    expect(document.body.textContent).toBe('');
    cleanup();
    // Even a preview already in the cache is not shown.
    renderCard(base, false);
    expect(screen.queryByText('A tide film')).toBeNull();
  });

  it('asks for the preview when link previews are on', async () => {
    const fetch = vi.fn(async () => Response.json(base));
    vi.stubGlobal('fetch', fetch);
    renderCard(undefined, true);
    await screen.findByText('A tide film');
    expect(String((fetch.mock.calls[0] as unknown[])[0])).toContain('/api/links/by_url?url=');
  });

  it('shows a plain card that links to the page when there is no embed', () => {
    renderCard(base);
    const link = screen.getByRole('link');
    expect(link.getAttribute('href')).toBe(URL_);
    expect(link.getAttribute('rel')).toContain('noopener');
    expect(screen.getByText('A tide film')).toBeTruthy();
  });

  it('reveals the embed only on click, in a sandboxed iframe of our own', () => {
    renderCard({ ...base, data: { ...base.data, code: '<iframe src="https://player.example/1"></iframe>' } });
    expect(document.querySelector('iframe')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Play A tide film' }));
    const frame = document.querySelector('iframe');
    expect(frame?.getAttribute('src')).toBe('https://player.example/1');
    expect(frame?.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin allow-popups allow-presentation');
  });

  it('shows nothing for a failed fetch', () => {
    const { container } = renderCard({ ...base, data: { origin: URL_, exception: 'timeout' } });
    expect(container.innerHTML).toBe('');
  });
});
