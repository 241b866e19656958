import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useStateResetOn } from './useStateResetOn.ts';

afterEach(cleanup);

describe('useStateResetOn', () => {
  it('holds what was set while the key stays the same', () => {
    const { result, rerender } = renderHook(({ key }) => useStateResetOn(key, 0), { initialProps: { key: 1 } });
    expect(result.current[0]).toBe(0);
    act(() => result.current[1](5));
    expect(result.current[0]).toBe(5);
    rerender({ key: 1 });
    expect(result.current[0]).toBe(5);
  });

  it('goes back to the initial value on a new key, also when the old key comes back', () => {
    const { result, rerender } = renderHook(({ key }) => useStateResetOn(key, 'idle'), { initialProps: { key: 1 } });
    act(() => result.current[1]('dragging'));
    rerender({ key: 2 });
    expect(result.current[0]).toBe('idle');
    rerender({ key: 1 });
    expect(result.current[0]).toBe('idle');
  });

  it('keeps a value set under the new key', () => {
    const { result, rerender } = renderHook(({ key }) => useStateResetOn(key, 0), { initialProps: { key: 1 } });
    rerender({ key: 2 });
    act(() => result.current[1](7));
    expect(result.current[0]).toBe(7);
  });
});
