import { describe, expect, it } from 'vitest';
import { parseSearch, searchPath, stripAccents } from './query';

describe('stripAccents', () => {
  it('removes accents and keeps the letters', () => {
    expect(stripAccents('Café crème à Noël')).toBe('Cafe creme a Noel');
  });

  it('keeps letters of other scripts whole', () => {
    expect(stripAccents('привет 안녕 🎉')).toBe('привет 안녕 🎉');
  });
});

describe('parseSearch', () => {
  it('splits words on spaces and plus signs, hashtags apart, without duplicates', () => {
    expect(parseSearch('  été+plage  #Vacances plage #vacances ')).toEqual({
      words: ['ete', 'plage'],
      hashtags: ['Vacances', 'vacances'],
    });
  });

  it('reads the hashtags parameter with or without "#"', () => {
    expect(parseSearch('', 'noël #fête')).toEqual({ words: [], hashtags: ['noel', 'fete'] });
  });

  it('treats a lone "#" as a word, which the server drops', () => {
    expect(parseSearch('#')).toEqual({ words: ['#'], hashtags: [] });
  });
});

describe('searchPath', () => {
  it('joins words and hashtags with "+" in the group search route', () => {
    expect(searchPath('g1', 'Café au lait #Noël #été')).toBe('/groups/g1/search?q=Cafe+au+lait&hashtags=Noel+ete');
  });

  it('leaves out an empty part', () => {
    expect(searchPath('g1', 'cafe')).toBe('/groups/g1/search?q=cafe');
    expect(searchPath('g1', '#cafe')).toBe('/groups/g1/search?hashtags=cafe');
    expect(searchPath('g1', '', 'cafe')).toBe('/groups/g1/search?hashtags=cafe');
  });

  it('encodes each word, so a "+" or "&" typed inside one cannot break the query string', () => {
    expect(searchPath('g1', 'a&b=c 100%')).toBe('/groups/g1/search?q=a%26b%3Dc+100%25');
    const url = new URL(`https://x${searchPath('g1', 'a&b=c 100%') ?? ''}`);
    expect(url.searchParams.get('q')).toBe('a&b=c 100%');
  });

  it('answers null when nothing is left to search', () => {
    expect(searchPath('g1', '  + + ')).toBeNull();
  });

  it('reads back what it wrote', () => {
    const url = new URL(`https://x${searchPath('g1', 'crème brûlée #Goûter') ?? ''}`);
    expect(parseSearch(url.searchParams.get('q') ?? '', url.searchParams.get('hashtags') ?? '')).toEqual({
      words: ['creme', 'brulee'],
      hashtags: ['Gouter'],
    });
  });
});
