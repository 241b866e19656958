import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { whenIdleAndSettled } from './whenSettled';

// The browser's idle callbacks, run by hand: each test says when the page is idle.
function idleQueue() {
  const waiting: (() => void)[] = [];
  vi.stubGlobal('requestIdleCallback', (callback: () => void) => waiting.push(callback));
  vi.stubGlobal('cancelIdleCallback', () => waiting.splice(0));
  return {
    /** Runs the callbacks waiting now (those they schedule wait for the next idle period). */
    idle: () => {
      for (const callback of waiting.splice(0)) callback();
    },
    waiting,
  };
}

/** A query whose answer comes when the test says. */
function slowRead(client: QueryClient): () => void {
  let answer = () => {};
  void client.fetchQuery({
    queryKey: ['feed'],
    queryFn: () => new Promise<string>((resolve) => (answer = () => resolve('page'))),
  });
  return () => answer();
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('whenIdleAndSettled', () => {
  it('waits for the reads under way, then runs once', async () => {
    const page = idleQueue();
    const client = new QueryClient();
    const answerFeed = slowRead(client);
    const work = vi.fn();
    whenIdleAndSettled(client, work);
    // Idle between two answers of the first screen: the feed is still being read.
    page.idle();
    page.idle();
    expect(work).not.toHaveBeenCalled();
    answerFeed();
    await vi.waitFor(() => expect(client.isFetching()).toBe(0));
    page.idle();
    expect(work).toHaveBeenCalledTimes(1);
    page.idle();
    expect(work).toHaveBeenCalledTimes(1);
    expect(page.waiting).toHaveLength(0);
  });

  it('runs at the first idle period when nothing is read, and not at all once cancelled', () => {
    const page = idleQueue();
    const client = new QueryClient();
    const work = vi.fn();
    whenIdleAndSettled(client, work);
    page.idle();
    expect(work).toHaveBeenCalledTimes(1);
    const other = vi.fn();
    const cancel = whenIdleAndSettled(client, other);
    cancel();
    page.idle();
    expect(other).not.toHaveBeenCalled();
  });

  it('runs anyway after a hundred idle periods of a read that never ends', () => {
    const page = idleQueue();
    const client = new QueryClient();
    slowRead(client);
    const work = vi.fn();
    whenIdleAndSettled(client, work);
    for (let period = 0; period < 100; period++) page.idle();
    expect(work).not.toHaveBeenCalled();
    page.idle();
    expect(work).toHaveBeenCalledTimes(1);
  });
});
