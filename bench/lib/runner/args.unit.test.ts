import { describe, expect, it } from 'vitest';
import { readArgs, selectScenarios } from './args.ts';

const known = ['page', 'feed', 'search-rare', 'search-mid', 'search-common', 'post', 'web'];

describe('--only', () => {
  it('takes the names given, each once', () => {
    expect([...selectScenarios(['post', 'page', 'post'], known)]).toEqual(['post', 'page']);
  });

  it('takes every scenario a prefix ending in * starts', () => {
    expect([...selectScenarios(['page', 'search-*'], known)]).toEqual([
      'page',
      'search-rare',
      'search-mid',
      'search-common',
    ]);
  });

  it('stops on a name that selects nothing, and lists the names', () => {
    expect(() => selectScenarios(['page', 'serch-rare'], known)).toThrow(
      '--only: no scenario is called serch-rare. The scenarios are page, feed, search-rare',
    );
    expect(() => selectScenarios(['mixed*'], known)).toThrow('no scenario is called mixed*');
  });

  it('reads the names from the command line, spaces and empty names dropped', () => {
    expect(readArgs(['--only', 'page, search-* ,,post']).only).toEqual(['page', 'search-*', 'post']);
    expect(readArgs([]).only).toBeNull();
  });
});
