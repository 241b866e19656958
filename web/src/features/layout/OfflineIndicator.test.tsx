import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OFFLINE_AFTER_MS } from '../../lib/events';
import { restoreOnline, setOnline } from '../../lib/events.fixtures';
import { initI18n } from '../../lib/i18n';
import { resetLiveStatus, setLiveConnected } from '../live/liveStatus';
import { OfflineIndicator } from './OfflineIndicator';

const TEXT = 'Offline — reconnecting…';

beforeAll(async () => {
  await initI18n('en_US');
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});

afterEach(() => {
  cleanup();
  act(() => resetLiveStatus());
  restoreOnline();
  vi.useRealTimers();
});

describe('OfflineIndicator', () => {
  it('says nothing while the stream connects, and shows itself once it has been down a while', () => {
    render(<OfflineIndicator />);
    act(() => setLiveConnected(false));
    const status = screen.getByRole('status');
    expect(status.textContent).toBe('');
    act(() => {
      vi.advanceTimersByTime(OFFLINE_AFTER_MS - 1);
    });
    expect(status.textContent).toBe('');
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(status.textContent).toBe(TEXT);
    // Back by itself once the stream is.
    act(() => setLiveConnected(true));
    expect(status.textContent).toBe('');
  });

  it('shows itself at once when the browser goes offline, whatever the stream says', () => {
    render(<OfflineIndicator />);
    act(() => setLiveConnected(true));
    act(() => setOnline(false));
    expect(screen.getByRole('status').textContent).toBe(TEXT);
    act(() => setOnline(true));
    expect(screen.getByRole('status').textContent).toBe('');
  });

  it('does not flash during an ordinary reconnection', () => {
    render(<OfflineIndicator />);
    act(() => setLiveConnected(true));
    act(() => setLiveConnected(false));
    act(() => {
      vi.advanceTimersByTime(7500);
    });
    act(() => setLiveConnected(true));
    act(() => {
      vi.advanceTimersByTime(OFFLINE_AFTER_MS);
    });
    expect(screen.getByRole('status').textContent).toBe('');
  });
});
