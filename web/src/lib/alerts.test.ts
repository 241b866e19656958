import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '@kith/common';
import { alerts, createAlertStore } from './alerts.ts';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('createAlertStore', () => {
  it('shows an alert in the success style by default', () => {
    const store = createAlertStore();
    const id = store.show('Saved');
    expect(store.getSnapshot()).toEqual([{ id, text: 'Saved', style: 'success' }]);
  });

  it('keeps the given style', () => {
    const store = createAlertStore();
    store.show('Request failed', 'danger');
    expect(store.getSnapshot()[0]?.style).toBe('danger');
  });

  it('removes an alert after exactly 5000 ms', () => {
    expect(LIMITS.alertMs).toBe(5000);
    const store = createAlertStore();
    store.show('Saved');
    vi.advanceTimersByTime(4999);
    expect(store.getSnapshot()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(store.getSnapshot()).toHaveLength(0);
  });

  it('honours a custom duration', () => {
    const store = createAlertStore(100);
    store.show('Quick');
    vi.advanceTimersByTime(99);
    expect(store.getSnapshot()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(store.getSnapshot()).toHaveLength(0);
  });

  it('keeps alerts forever with an infinite duration', () => {
    const store = createAlertStore(Number.POSITIVE_INFINITY);
    store.show('Sticky');
    vi.advanceTimersByTime(10 * 60_000);
    expect(store.getSnapshot()).toHaveLength(1);
  });

  it('expires each alert on its own clock', () => {
    const store = createAlertStore();
    store.show('first');
    vi.advanceTimersByTime(3000);
    store.show('second');
    vi.advanceTimersByTime(2000);
    expect(store.getSnapshot().map((a) => a.text)).toEqual(['second']);
    vi.advanceTimersByTime(3000);
    expect(store.getSnapshot()).toEqual([]);
  });

  it('does not stack the same text and restarts its timer', () => {
    const store = createAlertStore();
    const first = store.show('Offline', 'warning');
    vi.advanceTimersByTime(4000);
    const again = store.show('Offline', 'warning');
    expect(again).toBe(first);
    expect(store.getSnapshot()).toHaveLength(1);
    vi.advanceTimersByTime(4999);
    expect(store.getSnapshot()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(store.getSnapshot()).toHaveLength(0);
  });

  it('takes the newer style when the same text comes back', () => {
    const store = createAlertStore();
    store.show('Check this', 'info');
    store.show('Check this', 'danger');
    expect(store.getSnapshot()).toEqual([expect.objectContaining({ text: 'Check this', style: 'danger' })]);
  });

  it('shows the text again as a new alert once the old one is gone', () => {
    const store = createAlertStore();
    const first = store.show('Saved');
    vi.advanceTimersByTime(5000);
    expect(store.show('Saved')).not.toBe(first);
  });

  it('dismisses by id and ignores unknown ids', () => {
    const store = createAlertStore();
    const a = store.show('a');
    store.show('b');
    store.dismiss(a);
    expect(store.getSnapshot().map((x) => x.text)).toEqual(['b']);
    const snapshot = store.getSnapshot();
    store.dismiss(12345);
    store.dismiss(a);
    expect(store.getSnapshot()).toBe(snapshot);
  });

  it('changes the snapshot identity only on change', () => {
    const store = createAlertStore();
    const empty = store.getSnapshot();
    expect(store.getSnapshot()).toBe(empty);
    store.show('x');
    const one = store.getSnapshot();
    expect(one).not.toBe(empty);
    expect(store.getSnapshot()).toBe(one);
    store.show('x');
    expect(store.getSnapshot()).toBe(one);
  });

  it('notifies subscribers on change until they unsubscribe', () => {
    const store = createAlertStore();
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    const id = store.show('x');
    expect(listener).toHaveBeenCalledTimes(1);
    store.dismiss(id);
    expect(listener).toHaveBeenCalledTimes(2);
    store.dismiss(id);
    expect(listener).toHaveBeenCalledTimes(2);
    unsubscribe();
    store.show('y');
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it('does not let a dismissed alert’s timer remove a later one', () => {
    const store = createAlertStore();
    const id = store.show('x');
    store.dismiss(id);
    vi.advanceTimersByTime(2000);
    store.show('y');
    vi.advanceTimersByTime(3000);
    expect(store.getSnapshot().map((a) => a.text)).toEqual(['y']);
  });
});

describe('alerts', () => {
  it('is a ready-made store', () => {
    const id = alerts.show('global');
    expect(alerts.getSnapshot().some((a) => a.id === id)).toBe(true);
    alerts.dismiss(id);
    expect(alerts.getSnapshot().some((a) => a.id === id)).toBe(false);
  });
});
