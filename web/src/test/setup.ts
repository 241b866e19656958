import { options } from 'preact';
import { afterAll } from 'vitest';

// Preact runs effects after the next frame, or after a 35 ms timer if no frame comes; that timer then
// calls `cancelAnimationFrame`. On a busy machine it could fire after the file's last test, once
// jsdom's window was torn down, and fail the run with a ReferenceError. Here effects run after a
// macrotask instead (`act` still flushes them itself), and each file waits for the last ones before
// its environment goes.
const pending = new Set<() => void>();
options.requestAnimationFrame = (callback) => {
  const run = () => {
    pending.delete(run);
    callback();
  };
  pending.add(run);
  setTimeout(run);
};

afterAll(async () => {
  while (pending.size > 0) await new Promise((resolve) => setTimeout(resolve));
});
