import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storage } from '../../lib/storage';
import { deviceId, PRESENCE_EVERY_MS, PresenceReporter, reportPresence, startPresence } from './presence';

// The presence reports that keep pushes away while Kith is in front of its user (issue 21).

describe('PresenceReporter', () => {
  let sent: boolean[];
  let enabled: boolean;
  let reporter: PresenceReporter;

  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    enabled = true;
    reporter = new PresenceReporter(
      (focused) => sent.push(focused),
      () => enabled,
    );
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('says nothing until this tab reads an open stream', () => {
    reporter.setFocus('a', true);
    vi.advanceTimersByTime(PRESENCE_EVERY_MS * 3);
    expect(sent).toEqual([]);
    reporter.setReporting(true);
    expect(sent).toEqual([true]);
  });

  it('says it again every minute while focused, and stops on blur', () => {
    reporter.setFocus('a', true);
    reporter.setReporting(true);
    expect(sent).toEqual([true]);
    vi.advanceTimersByTime(PRESENCE_EVERY_MS - 1);
    expect(sent).toEqual([true]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([true, true]);
    vi.advanceTimersByTime(PRESENCE_EVERY_MS);
    expect(sent).toEqual([true, true, true]);
    reporter.setFocus('a', false);
    expect(sent).toEqual([true, true, true, false]);
    vi.advanceTimersByTime(PRESENCE_EVERY_MS * 5);
    expect(sent).toEqual([true, true, true, false]);
  });

  it('reports a change only: a blurred browser that stays blurred is not told twice', () => {
    reporter.setReporting(true);
    reporter.setFocus('a', false);
    reporter.setFocus('b', false);
    expect(sent).toEqual([false]);
    reporter.setFocus('a', true);
    reporter.setFocus('b', true);
    expect(sent).toEqual([false, true]);
  });

  it('counts the browser focused while any tab is, whatever order the tabs’ news arrives in', () => {
    reporter.setFocus('a', true);
    reporter.setReporting(true);
    // Switching from tab a to tab b: b's focus may be heard before a's blur.
    reporter.setFocus('b', true);
    reporter.setFocus('a', false);
    expect(sent).toEqual([true]);
    reporter.setFocus('b', false);
    expect(sent).toEqual([true, false]);
  });

  it('says false once when the stream closes after a true, and nothing after a false', () => {
    reporter.setFocus('a', true);
    reporter.setReporting(true);
    reporter.setReporting(false);
    expect(sent).toEqual([true, false]);
    vi.advanceTimersByTime(PRESENCE_EVERY_MS * 2);
    expect(sent).toEqual([true, false]);
    reporter.setFocus('a', false);
    reporter.setReporting(true);
    reporter.setReporting(false);
    expect(sent).toEqual([true, false, false]);
    // The stream opens again on a focused browser: it is said at once.
    reporter.setFocus('a', true);
    reporter.setReporting(true);
    expect(sent).toEqual([true, false, false, true]);
  });

  it('reports nothing while the server does not push, and starts once it is known to', () => {
    enabled = false;
    reporter.setReporting(true);
    reporter.setFocus('a', true);
    vi.advanceTimersByTime(PRESENCE_EVERY_MS * 2);
    expect(sent).toEqual([]);
    enabled = true;
    reporter.refresh();
    expect(sent).toEqual([true]);
  });
});

describe('startPresence', () => {
  const NAME = 'kith-live-test';
  let focused: boolean;
  let other: BroadcastChannel;
  let heard: unknown[];

  beforeEach(() => {
    focused = true;
    vi.spyOn(document, 'hasFocus').mockImplementation(() => focused);
    heard = [];
    other = new BroadcastChannel(`${NAME}-presence`);
    other.onmessage = (event: MessageEvent) => heard.push(event.data);
  });

  afterEach(() => {
    other.close();
    vi.restoreAllMocks();
  });

  it('reports this tab’s focus while leading, follows blur and focus, and says false on stop', () => {
    const sent: boolean[] = [];
    const presence = startPresence({ name: NAME, send: (value) => sent.push(value), enabled: () => true });
    presence.setReporting(true);
    expect(sent).toEqual([true]);
    focused = false;
    window.dispatchEvent(new Event('blur'));
    expect(sent).toEqual([true, false]);
    focused = true;
    window.dispatchEvent(new Event('focus'));
    expect(sent).toEqual([true, false, true]);
    presence.stop();
    expect(sent).toEqual([true, false, true, false]);
    // Stopped: its listeners are gone.
    window.dispatchEvent(new Event('blur'));
    expect(sent).toEqual([true, false, true, false]);
  });

  it('says false as the page goes away', () => {
    const sent: boolean[] = [];
    const presence = startPresence({ name: NAME, send: (value) => sent.push(value), enabled: () => true });
    presence.setReporting(true);
    window.dispatchEvent(new Event('pagehide'));
    expect(sent).toEqual([true, false]);
    presence.stop();
    expect(sent).toEqual([true, false]);
  });

  it('tells the other tabs its focus, answers their question, and counts theirs when it leads', async () => {
    focused = false;
    const sent: boolean[] = [];
    const presence = startPresence({ name: NAME, send: (value) => sent.push(value), enabled: () => true });
    await vi.waitFor(() => expect(heard).toContainEqual({ type: 'ask' }));
    expect(heard).toContainEqual(expect.objectContaining({ type: 'focus', focused: false }));
    presence.setReporting(true);
    expect(sent).toEqual([false]);

    // Another tab of the browser is in front: the leader reports for it.
    other.postMessage({ type: 'focus', tab: 'other-tab', focused: true });
    await vi.waitFor(() => expect(sent).toEqual([false, true]));
    other.postMessage({ type: 'focus', tab: 'other-tab', focused: false });
    await vi.waitFor(() => expect(sent).toEqual([false, true, false]));

    heard = [];
    other.postMessage({ type: 'ask' });
    await vi.waitFor(() => expect(heard).toEqual([expect.objectContaining({ type: 'focus', focused: false })]));
    presence.stop();
  });
});

describe('reportPresence', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends PUT /api/me/presence with the key, kept alive past the page', () => {
    const fetchSpy = vi.fn(() => Promise.resolve(new Response(null, { status: 204 })));
    vi.stubGlobal('fetch', fetchSpy);
    reportPresence('key-1', { device: 'd1', focused: true });
    expect(fetchSpy).toHaveBeenCalledWith('/api/me/presence', {
      method: 'PUT',
      headers: { 'X-AUTH-TOKEN': 'key-1', 'Content-Type': 'application/json' },
      body: '{"device":"d1","focused":true}',
      keepalive: true,
      cache: 'no-store',
    });
  });

  it('swallows a refusal, a network failure and a fetch that throws', async () => {
    const rejection = vi.fn(() => Promise.reject(new TypeError('Failed to fetch')));
    vi.stubGlobal('fetch', rejection);
    expect(() => reportPresence('key-1', { device: 'd1', focused: false })).not.toThrow();
    await Promise.resolve();
    vi.stubGlobal(
      'fetch',
      vi.fn(() => {
        throw new TypeError('keepalive quota');
      }),
    );
    expect(() => reportPresence('key-1', { device: 'd1', focused: false })).not.toThrow();
    vi.stubGlobal('fetch', () => Promise.resolve(new Response('{"code":"not_found"}', { status: 404 })));
    expect(() => reportPresence('key-1', { device: 'd1', focused: false })).not.toThrow();
  });
});

describe('deviceId', () => {
  afterEach(() => {
    storage.clear([]);
  });

  it('makes one id for the browser, within the server’s pattern, and keeps it', () => {
    const id = deviceId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(deviceId()).toBe(id);
    storage.clear([]);
    expect(deviceId()).not.toBe(id);
  });
});
