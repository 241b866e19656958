import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storage } from './storage.ts';

const quota = () => {
  throw new DOMException('full', 'QuotaExceededError');
};

beforeEach(() => {
  storage.clear();
  window.localStorage.clear();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('storage', () => {
  it('round-trips values of any JSON type', () => {
    storage.set('obj', { a: 1, b: ['x'] });
    storage.set('zero', 0);
    storage.set('no', false);
    storage.set('text', '');
    expect(storage.get('obj')).toEqual({ a: 1, b: ['x'] });
    expect(storage.get('zero')).toBe(0);
    expect(storage.get('no')).toBe(false);
    expect(storage.get('text')).toBe('');
  });

  it('returns null for missing keys', () => {
    expect(storage.get('missing')).toBeNull();
    expect(storage.getEntry('missing')).toBeNull();
  });

  it('wraps entries with createdAt and metadata in localStorage', () => {
    vi.useFakeTimers({ now: 1_700_000_000_123 });
    storage.set('draft', 'hello', { groupId: 'g1' });
    expect(JSON.parse(window.localStorage.getItem('draft')!)).toEqual({
      data: 'hello',
      createdAt: 1_700_000_000_123,
      metadata: { groupId: 'g1' },
    });
    expect(storage.getEntry<string>('draft')).toEqual({
      data: 'hello',
      createdAt: 1_700_000_000_123,
      metadata: { groupId: 'g1' },
    });
  });

  it('defaults metadata to an empty object', () => {
    storage.set('k', 1);
    expect(storage.getEntry('k')?.metadata).toEqual({});
  });

  it('reads corrupt JSON as null', () => {
    window.localStorage.setItem('bad', '{not json');
    expect(storage.get('bad')).toBeNull();
    expect(storage.getEntry('bad')).toBeNull();
  });

  it('reads entries without the wrapper as null', () => {
    const samples = [
      '"plain string"',
      'null',
      '[1,2]',
      JSON.stringify({ createdAt: 1, metadata: {} }),
      JSON.stringify({ data: 1, metadata: {} }),
      JSON.stringify({ data: 1, createdAt: '1', metadata: {} }),
      JSON.stringify({ data: 1, createdAt: 1 }),
      JSON.stringify({ data: 1, createdAt: 1, metadata: [] }),
      JSON.stringify({ data: 1, createdAt: 1, metadata: null }),
    ];
    for (const raw of samples) {
      window.localStorage.setItem('x', raw);
      expect(storage.get('x'), raw).toBeNull();
    }
  });

  it('removes one entry and clears all', () => {
    storage.set('a', 1);
    storage.set('b', 2);
    window.localStorage.setItem('foreign', 'kept until logout');
    storage.remove('a');
    expect(storage.get('a')).toBeNull();
    expect(storage.get('b')).toBe(2);
    storage.clear();
    expect(storage.get('b')).toBeNull();
    expect(window.localStorage.length).toBe(0);
  });
});

describe('storage when localStorage fails', () => {
  it('keeps working in memory when writes throw', () => {
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(quota);
    storage.set('draft', { text: 'hi' }, { v: 2 });
    expect(window.localStorage.getItem('draft')).toBeNull();
    expect(storage.get('draft')).toEqual({ text: 'hi' });
    expect(storage.getEntry('draft')?.metadata).toEqual({ v: 2 });
    storage.remove('draft');
    expect(storage.get('draft')).toBeNull();
  });

  it('reads the latest write even when an older value is still in localStorage', () => {
    storage.set('k', 'old');
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(quota);
    storage.set('k', 'new');
    expect(storage.get('k')).toBe('new');
    vi.restoreAllMocks();
    // Once writes work again, localStorage holds the truth and memory steps aside.
    storage.set('k', 'newest');
    expect(window.localStorage.getItem('k')).toContain('newest');
    expect(storage.get('k')).toBe('newest');
  });

  it('survives every operation throwing', () => {
    for (const method of ['getItem', 'setItem', 'removeItem', 'clear'] as const) {
      vi.spyOn(Storage.prototype, method).mockImplementation(quota);
    }
    expect(() => storage.set('a', 1)).not.toThrow();
    expect(storage.get('a')).toBe(1);
    expect(() => storage.remove('a')).not.toThrow();
    expect(storage.get('a')).toBeNull();
    storage.set('b', 2);
    expect(() => storage.clear()).not.toThrow();
    expect(storage.get('b')).toBeNull();
  });

  it('survives localStorage itself being inaccessible', () => {
    vi.spyOn(window, 'localStorage', 'get').mockImplementation(() => {
      throw new DOMException('blocked', 'SecurityError');
    });
    storage.set('a', 'x');
    expect(storage.get('a')).toBe('x');
    storage.clear();
    expect(storage.get('a')).toBeNull();
  });
});
