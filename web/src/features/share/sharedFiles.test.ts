import { describe, expect, it } from 'vitest';
import { indexInBatch, isStale } from './sharedFiles';

describe('shared photo keys', () => {
  const key = (batch: string, index: number) => `https://kith.example/family/share-target/${batch}/${index}`;

  it('finds the index of a photo of the batch, and nothing for another batch', () => {
    expect(indexInBatch(key('1700000000000-ab', 2), '1700000000000-ab')).toBe(2);
    expect(indexInBatch(key('1700000000000-cd', 0), '1700000000000-ab')).toBeNull();
    expect(indexInBatch('https://kith.example/share/1', '1700000000000-ab')).toBeNull();
  });

  it('calls a batch stale after a day', () => {
    const made = 1_700_000_000_000;
    expect(isStale(key(`${made}-ab`, 0), made + 23 * 3600_000)).toBe(false);
    expect(isStale(key(`${made}-ab`, 0), made + 25 * 3600_000)).toBe(true);
  });
});
