import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createQueryClient, keys } from '../../api/queries';
import type { LinkPreview } from '@kith/common';
import { initI18n } from '../../lib/i18n';
import { embedSource, LinkCard } from './LinkCard';

const URL_ = 'https://video.example/watch/1';

function renderCard(preview: LinkPreview) {
  const client = createQueryClient();
  client.setQueryData(keys.link(URL_), preview);
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

afterEach(cleanup);

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
