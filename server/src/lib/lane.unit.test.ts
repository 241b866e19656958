import { describe, expect, it } from 'vitest';
import { Lane } from './lane.js';

/** A task the test ends by hand. */
function held(): { task: () => Promise<string>; started: () => boolean; end: (value: string) => void } {
  let started = false;
  let end: (value: string) => void = () => undefined;
  const done = new Promise<string>((resolve) => (end = resolve));
  return {
    task: () => {
      started = true;
      return done;
    },
    started: () => started,
    end: (value) => end(value),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Lane', () => {
  it('runs at most its width at once, the others in the order they came', async () => {
    const lane = new Lane(2);
    const tasks = [held(), held(), held(), held()];
    const results = tasks.map((t) => lane.run(t.task));
    await turn();
    expect(tasks.map((t) => t.started())).toEqual([true, true, false, false]);
    expect(lane.pending).toBe(4);
    tasks[1]?.end('b');
    await turn();
    expect(tasks.map((t) => t.started())).toEqual([true, true, true, false]);
    tasks[0]?.end('a');
    tasks[2]?.end('c');
    await turn();
    expect(tasks[3]?.started()).toBe(true);
    tasks[3]?.end('d');
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(lane.pending).toBe(0);
  });

  it('gives the place of a failed task to the next one', async () => {
    const lane = new Lane(1);
    const failing = lane.run(() => Promise.reject(new Error('broken')));
    const next = held();
    const after = lane.run(next.task);
    await expect(failing).rejects.toThrow('broken');
    await turn();
    expect(next.started()).toBe(true);
    next.end('ok');
    expect(await after).toBe('ok');
    expect(lane.pending).toBe(0);
  });
});
