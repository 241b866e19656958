import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { alerts } from '../lib/alerts';
import { ApiError } from '../lib/api';
import { initI18n } from '../lib/i18n';
import { useSubmit } from './useSubmit';

// The en_US texts, so the generic error can be checked.
beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(() => {
  cleanup();
  for (const alert of alerts.getSnapshot()) alerts.dismiss(alert.id);
});

/** A task that waits until the test settles it. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function lastAlert() {
  const shown = alerts.getSnapshot();
  return shown[shown.length - 1];
}

describe('useSubmit', () => {
  it('is pending while the task runs, and not before or after', async () => {
    const { result } = renderHook(() => useSubmit());
    expect(result.current.pending).toBe(false);
    const task = deferred();
    let done!: Promise<void>;
    act(() => {
      done = result.current.run(() => task.promise);
    });
    expect(result.current.pending).toBe(true);
    await act(async () => {
      task.resolve();
      await done;
    });
    expect(result.current.pending).toBe(false);
    expect(alerts.getSnapshot()).toEqual([]);
  });

  it('ignores a second submission while one runs, and accepts one afterwards', async () => {
    const { result } = renderHook(() => useSubmit());
    const task = deferred();
    let calls = 0;
    const submit = () =>
      result.current.run(() => {
        calls += 1;
        return task.promise;
      });
    let first!: Promise<void>;
    await act(async () => {
      first = submit();
      // Before the re-render that disables the button: the same tick as the first click.
      await submit();
    });
    expect(calls).toBe(1);
    await act(async () => {
      task.resolve();
      await first;
    });
    await act(() => submit());
    expect(calls).toBe(2);
  });

  it("shows the server's message for an error code without a text of ours", async () => {
    const { result } = renderHook(() => useSubmit());
    await act(() =>
      result.current.run(() => Promise.reject(new ApiError(409, 'some_new_code', 'The server says no.'))),
    );
    expect(lastAlert()).toMatchObject({ text: 'The server says no.', style: 'danger' });
    expect(result.current.pending).toBe(false);
  });

  it('shows "An error occurred" when the server gave no message, or the failure is not an API error', async () => {
    const { result } = renderHook(() => useSubmit());
    await act(() => result.current.run(() => Promise.reject(new ApiError(500, 'some_new_code', ''))));
    expect(lastAlert()).toMatchObject({ text: 'An error occurred', style: 'danger' });
    await act(() => result.current.run(() => Promise.reject(new TypeError('boom'))));
    expect(lastAlert()).toMatchObject({ text: 'An error occurred', style: 'danger' });
  });

  it('stays locked after a success with lockAfterSuccess, and unlocks after a failure', async () => {
    const { result } = renderHook(() => useSubmit({ lockAfterSuccess: true }));
    let calls = 0;
    await act(() =>
      result.current.run(() => {
        calls += 1;
        return Promise.reject(new ApiError(0, 'network_error', 'offline'));
      }),
    );
    expect(result.current.pending).toBe(false);
    await act(() =>
      result.current.run(async () => {
        calls += 1;
      }),
    );
    expect(result.current.pending).toBe(true);
    await act(() =>
      result.current.run(async () => {
        calls += 1;
      }),
    );
    expect(calls).toBe(2);
  });
});
