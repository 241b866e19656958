import { describe, expect, it } from 'vitest';
import { SseParser } from './events';

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
