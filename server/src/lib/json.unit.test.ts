import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonObject } from './json.js';

describe('request bodies as JSON objects', () => {
  it('counts nesting on the raw text, skipping brackets inside strings', () => {
    expect(nestsDeeperThan('{"a":[1,{"b":[]}]}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":[1,{"b":[]}]}', 3)).toBe(true);
    expect(nestsDeeperThan('{"a":[1,{"b":[[]]}],"c":{}}', 4)).toBe(true);
    expect(nestsDeeperThan('{"a":[1],"b":[2],"c":[3]}', 2)).toBe(false);
    expect(nestsDeeperThan(`{"a":"${'['.repeat(1000)}"}`, 1)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(nestsDeeperThan('['.repeat(1024 * 1024), MAX_JSON_DEPTH)).toBe(true);
  });

  it('reads objects up to the depth limit and refuses deeper ones', () => {
    const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(parseJsonObject(nested(MAX_JSON_DEPTH))).toEqual({ a: expect.any(Array) });
    expect(parseJsonObject(nested(MAX_JSON_DEPTH + 1))).toBeInstanceOf(Error);
  });

  it('refuses what is not an object, and NUL characters', () => {
    for (const text of ['[]', 'null', '"x"', '42', '{"a":', '{"a":"\\u0000"}']) {
      expect(parseJsonObject(text), text).toBeInstanceOf(Error);
    }
    expect(parseJsonObject('{"name":"Café 🎉","n":[1,{"x":null}]}')).toEqual({
      name: 'Café 🎉',
      n: [1, { x: null }],
    });
  });
});
