import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useStateResetOn } from './useStateResetOn';

afterEach(cleanup);

describe('useStateResetOn', () => {
  it('holds what was set while the key stays the same', () => {
    const { result, rerender } = renderHook(({ key }) => useStateResetOn(key, () => 0), {
      initialProps: { key: 1 },
    });
    expect(result.current[0]).toBe(0);
    act(() => result.current[1](5));
    expect(result.current[0]).toBe(5);
    act(() => result.current[1]((value) => value + 1));
    expect(result.current[0]).toBe(6);
    rerender({ key: 1 });
    expect(result.current[0]).toBe(6);
  });

  it('goes back to the initial value on a new key, also when the old key comes back', () => {
    const { result, rerender } = renderHook(({ key }) => useStateResetOn(key, () => 'idle'), {
      initialProps: { key: 1 },
    });
    act(() => result.current[1]('dragging'));
    rerender({ key: 2 });
    expect(result.current[0]).toBe('idle');
    rerender({ key: 1 });
    expect(result.current[0]).toBe('idle');
  });

  it('computes the initial value again for each new key', () => {
    let calls = 0;
    const { result, rerender } = renderHook(({ key }) => useStateResetOn(key, () => (calls += 1)), {
      initialProps: { key: 'a' },
    });
    expect(result.current[0]).toBe(1);
    rerender({ key: 'a' });
    expect(result.current[0]).toBe(1);
    rerender({ key: 'b' });
    expect(result.current[0]).toBe(2);
  });

  it('keeps a value set under the new key, with a setter that stays the same', () => {
    const { result, rerender } = renderHook(({ key }) => useStateResetOn(key, () => 0), {
      initialProps: { key: 1 },
    });
    const setter = result.current[1];
    rerender({ key: 2 });
    expect(result.current[1]).toBe(setter);
    act(() => setter((value) => value + 7));
    expect(result.current[0]).toBe(7);
  });
});
