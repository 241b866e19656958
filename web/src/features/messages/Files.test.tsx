import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createQueryClient } from '../../api/queries';
import type { FileObject } from '@kith/common';
import { initI18n } from '../../lib/i18n';
import { Files } from './Files';

const file = (overrides: Partial<FileObject>): FileObject => ({
  id: 'f1',
  entityType: 'file',
  type: 'application/pdf',
  status: 'ready',
  contentUrl: 'f1.pdf?exp=1767355200&sig=abc',
  size: 1000,
  fileIndex: 0,
  name: 'Minutes.pdf',
  progress: null,
  createdAt: 1767268800,
  error: null,
  ...overrides,
});

function renderFiles(files: FileObject[]) {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <Files files={files} />
    </QueryClientProvider>,
  );
}

afterEach(cleanup);

beforeAll(async () => {
  await initI18n('en_US');
});

describe('Files', () => {
  it('shows a PDF by its first page and downloads it instead of opening it', () => {
    renderFiles([file({})]);
    const link = screen.getByRole('link', { name: 'Download Minutes.pdf' });
    expect(link.getAttribute('href')).toBe('/files/f1.pdf?exp=1767355200&sig=abc');
    expect(link.getAttribute('download')).toBe('Minutes.pdf');
    // Not a new tab: nothing of the document is ever opened by the browser's viewer.
    expect(link.getAttribute('target')).toBeNull();
    const page = link.querySelector('img');
    expect(page?.getAttribute('src')).toBe('/api/images/thumbnail/420/994/f1');
    expect(page?.getAttribute('alt')).toBe('');
    expect(link.textContent).toContain('Minutes.pdf');
    expect(link.textContent).toContain('Download');
  });

  it('names a PDF without a name by its kind', () => {
    renderFiles([file({ name: '' })]);
    const link = screen.getByRole('link', { name: 'Download PDF document' });
    expect(link.hasAttribute('download')).toBe(true);
  });

  it('still shows pictures in place and other files as plain downloads', () => {
    renderFiles([
      file({ id: 'p1', type: 'image/jpeg', name: 'beach.jpg', contentUrl: 'p1.jpg?exp=1&sig=x' }),
      file({ id: 'z1', type: 'application/zip', name: 'archive.zip', contentUrl: 'z1.zip?exp=1&sig=x' }),
    ]);
    expect(screen.getByRole('button', { name: 'Open the picture beach.jpg' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'archive.zip' }).hasAttribute('download')).toBe(true);
  });
});
