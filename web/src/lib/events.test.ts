import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay, openEventStream, SseParser, type StreamEvent } from './events';
import { FakeEventServer, restoreOnline, setOnline } from './events.fixtures';

describe('SseParser', () => {
  it('parses events with id, type and data, ignoring comments', () => {
    const parser = new SseParser();
    const events = parser.push('retry: 5000\n\nid: 7\nevent: notification\ndata: {"a":1}\n\n: ping\n\n');
    expect(events).toEqual([{ id: '7', event: 'notification', data: '{"a":1}' }]);
    expect(parser.retry).toBe(5000);
  });

  it('joins chunks split anywhere, including inside a CRLF', () => {
    const parser = new SseParser();
    const text = 'id: 1\r\nevent: comment\r\ndata: {"x":\r\ndata: 2}\r\n\r\nid: 2\r\ndata: y\r\n\r\n';
    const events = [];
    for (let i = 0; i < text.length; i += 3) events.push(...parser.push(text.slice(i, i + 3)));
    expect(events).toEqual([
      { id: '1', event: 'comment', data: '{"x":\n2}' },
      { id: '2', event: 'message', data: 'y' },
    ]);
  });

  it('keeps the last id for events that do not repeat it', () => {
    const parser = new SseParser();
    expect(parser.push('id: 9\ndata: a\n\ndata: b\n\n').map((e) => e.id)).toEqual(['9', '9']);
  });
});

describe('backoffDelay', () => {
  it('doubles the server’s retry up to a minute, adding up to half again at random', () => {
    const lowest = [0, 1, 2, 3, 4, 5, 10].map((attempt) => backoffDelay(attempt, 5000, () => 0));
    expect(lowest).toEqual([5000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
    const highest = [0, 1, 2, 3, 4].map((attempt) => backoffDelay(attempt, 5000, () => 1));
    expect(highest).toEqual([7500, 15_000, 30_000, 60_000, 90_000]);
  });

  it('never waits less than the server asks, nor less than a second', () => {
    expect(backoffDelay(0, 60_000, () => 0)).toBe(60_000);
    expect(backoffDelay(6, 60_000, () => 0)).toBe(60_000);
    expect(backoffDelay(0, 0, () => 0)).toBe(1000);
    expect(backoffDelay(1000, 5000, () => 0)).toBe(60_000);
  });
});

describe('openEventStream', { timeout: 60_000 }, () => {
  let server: FakeEventServer;
  let stop: () => void = () => {};
  const events: StreamEvent[] = [];
  const statuses: boolean[] = [];
  const onResync = vi.fn();
  const onUnauthorized = vi.fn();

  /** Waits (in real time, with the fake clock still) until `condition` holds: streams settle in a few turns. */
  async function until(condition: () => boolean): Promise<void> {
    const deadline = performance.now() + 10_000;
    while (!condition()) {
      if (performance.now() > deadline) throw new Error('the condition did not hold within 10 s');
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  function open(random = () => 0): void {
    stop = openEventStream({
      getKey: () => 'key-1',
      onEvent: (event) => events.push(event),
      onStatus: (connected) => statuses.push(connected),
      onResync,
      onUnauthorized,
      random,
    });
  }

  /** Lets `ms` of fake time pass and the work it wakes settle. */
  const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    server = new FakeEventServer();
    vi.stubGlobal('fetch', server.fetch);
  });

  afterEach(() => {
    stop();
    vi.useRealTimers();
    vi.unstubAllGlobals();
    restoreOnline();
    events.length = 0;
    statuses.length = 0;
    onResync.mockReset();
    onUnauthorized.mockReset();
  });

  it('reconnects after the server’s retry with the Last-Event-ID of the last event', async () => {
    open();
    await until(() => server.calls.length === 1);
    expect(server.last.headers['X-AUTH-TOKEN']).toBe('key-1');
    expect(server.last.headers).not.toHaveProperty('Last-Event-ID');
    server.last.send('retry: 5000\n\nid: 41\nevent: notification\ndata: {"id":"n1"}\n\n');
    await until(() => events.length === 1);
    expect(statuses).toEqual([true]);
    server.last.end();
    await until(() => statuses.length === 2);
    expect(statuses).toEqual([true, false]);

    await pass(4999);
    expect(server.calls).toHaveLength(1);
    await pass(1);
    expect(server.calls).toHaveLength(2);
    expect(server.last.headers['Last-Event-ID']).toBe('41');
    // Resumed at once: the server replays what was missed, nothing to reload.
    await until(() => statuses.length === 3);
    expect(onResync).not.toHaveBeenCalled();
  });

  it('waits twice as long after each failure, and starts over after a healthy stream', async () => {
    for (let i = 0; i < 4; i += 1) server.queue(new TypeError('Failed to fetch'));
    open();
    await until(() => server.calls.length === 1);
    const waits: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const before = Date.now();
      const calls = server.calls.length;
      while (server.calls.length === calls) await pass(250);
      waits.push(Date.now() - before);
    }
    // 5 s, 10 s, 20 s, 40 s (to the next quarter second the loop looks at).
    expect(waits).toEqual([5000, 10_000, 20_000, 40_000]);

    // The fifth request got a stream; it stays up for more than a minute, then ends.
    await until(() => statuses.includes(true));
    await pass(61_000);
    server.last.end();
    await until(() => statuses.at(-1) === false);
    const before = Date.now();
    const calls = server.calls.length;
    while (server.calls.length === calls) await pass(250);
    expect(Date.now() - before).toBe(5000);
  });

  it('waits for Retry-After on 429, even when the network comes back', async () => {
    server.queue({ status: 429, body: { code: 'too_many_requests' }, headers: { 'Retry-After': '120' } });
    open();
    await until(() => server.calls.length === 1);
    await pass(60_000);
    setOnline(true);
    await pass(59_000);
    expect(server.calls).toHaveLength(1);
    await pass(1000);
    expect(server.calls).toHaveLength(2);
  });

  it('stops and signs out on 401 invalid_api_key', async () => {
    server.queue({ status: 401, body: { code: 'invalid_api_key' } });
    open();
    await until(() => onUnauthorized.mock.calls.length === 1);
    await pass(10 * 60_000);
    expect(server.calls).toHaveLength(1);
  });

  it('comes back only after the server’s longer retry when a newer stream of the user closed it', async () => {
    open();
    await until(() => server.calls.length === 1);
    server.last.send('retry: 5000\n\nid: 7\nevent: message\ndata: {}\n\n');
    server.last.send('retry: 60000\nevent: closed\ndata: {"reason":"too_many_streams"}\n\n');
    server.last.end();
    await until(() => statuses.at(-1) === false);
    // Not passed on as an update.
    expect(events.map((e) => e.event)).toEqual(['message']);
    setOnline(true);
    await pass(59_999);
    expect(server.calls).toHaveLength(1);
    await pass(1);
    expect(server.calls).toHaveLength(2);
    expect(server.last.headers['Last-Event-ID']).toBe('7');
  });

  it('drops the stream when the browser goes offline, and resumes and resyncs as soon as it is back', async () => {
    open();
    await until(() => server.calls.length === 1);
    server.last.send('retry: 5000\n\nid: 12\nevent: message\ndata: {}\n\n');
    await until(() => events.length === 1);
    setOnline(false);
    await until(() => server.last.aborted && statuses.at(-1) === false);
    await pass(1000);
    expect(server.calls).toHaveLength(1);
    setOnline(true);
    await until(() => server.calls.length === 2);
    expect(server.last.headers['Last-Event-ID']).toBe('12');
    await until(() => statuses.at(-1) === true);
    // The user may have seen the offline sign: what the screens show is reloaded.
    expect(onResync).toHaveBeenCalledTimes(1);
  });

  it('stops for good when closed', async () => {
    open();
    await until(() => server.calls.length === 1);
    stop();
    expect(server.last.aborted).toBe(true);
    await pass(10 * 60_000);
    expect(server.calls).toHaveLength(1);
  });
});
