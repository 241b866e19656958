import { afterEach, describe, expect, it, vi } from 'vitest';
import { firstStreamOpened, noteAnswerEventId, resetEventClock, stopWatching } from './eventClock';

afterEach(() => resetEventClock());

describe('eventClock: did an event come between what was read and the first stream?', () => {
  it('no: every answer was read at the id the stream starts after, and later answers are newer', () => {
    const gap = vi.fn();
    noteAnswerEventId('41');
    noteAnswerEventId('41');
    firstStreamOpened('41', gap);
    noteAnswerEventId('41');
    noteAnswerEventId('57');
    expect(gap).not.toHaveBeenCalled();
  });

  it('yes: an answer read before an event the stream started after', () => {
    const gap = vi.fn();
    noteAnswerEventId('41');
    noteAnswerEventId('40');
    firstStreamOpened('41', gap);
    expect(gap).toHaveBeenCalledTimes(1);
  });

  it('yes, later: an answer read before the stream lands after it opened, once', () => {
    const gap = vi.fn();
    noteAnswerEventId('41');
    firstStreamOpened('41', gap);
    expect(gap).not.toHaveBeenCalled();
    noteAnswerEventId('39');
    noteAnswerEventId('38');
    expect(gap).toHaveBeenCalledTimes(1);
  });

  it('cannot tell: a stream without the id (another server) or answers without it read again', () => {
    const gap = vi.fn();
    noteAnswerEventId(null);
    noteAnswerEventId('not a number');
    firstStreamOpened(null, gap);
    expect(gap).toHaveBeenCalledTimes(1);
  });

  it('a new connection after one that ended reads again: what was read under the old one is older', () => {
    const first = vi.fn();
    noteAnswerEventId('41');
    firstStreamOpened('41', first);
    stopWatching();
    const second = vi.fn();
    firstStreamOpened('90', second);
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
  });
});
