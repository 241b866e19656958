import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAlertStore } from '../lib/alerts.ts';
import { Alerts } from './Alerts.tsx';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('Alerts', () => {
  it('renders nothing visible without alerts', () => {
    render(<Alerts store={createAlertStore()} />);
    expect(screen.queryByRole('status')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows an alert in the success style by default', () => {
    const store = createAlertStore();
    render(<Alerts store={store} />);
    act(() => {
      store.show('Message posted');
    });
    const alert = screen.getByRole('status');
    expect(alert.textContent).toContain('Message posted');
    expect(alert.getAttribute('data-style')).toBe('success');
  });

  it('uses role="alert" for danger and warning', () => {
    const store = createAlertStore();
    render(<Alerts store={store} />);
    act(() => {
      store.show('Request failed', 'danger');
      store.show('Offline', 'warning');
      store.show('Tip', 'info');
    });
    const urgent = screen.getAllByRole('alert');
    expect(urgent.map((a) => a.getAttribute('data-style'))).toEqual(['danger', 'warning']);
    expect(screen.getByRole('status').getAttribute('data-style')).toBe('info');
  });

  it('removes the alert after 5000 ms', () => {
    const store = createAlertStore();
    render(<Alerts store={store} />);
    act(() => {
      store.show('Saved');
    });
    act(() => {
      vi.advanceTimersByTime(4999);
    });
    expect(screen.queryByText('Saved')).not.toBeNull();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.queryByText('Saved')).toBeNull();
  });

  it('closes an alert with its close button', () => {
    const store = createAlertStore();
    render(<Alerts store={store} />);
    act(() => {
      store.show('First');
      store.show('Second');
    });
    const buttons = screen.getAllByRole('button', { name: 'alert.close' });
    expect(buttons).toHaveLength(2);
    fireEvent.click(buttons[0]!);
    expect(screen.queryByText('First')).toBeNull();
    expect(screen.queryByText('Second')).not.toBeNull();
    expect(store.getSnapshot()).toHaveLength(1);
  });
});
