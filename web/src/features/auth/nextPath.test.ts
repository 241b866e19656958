import { describe, expect, it } from 'vitest';
import { safeNextPath } from './nextPath';

describe('safeNextPath', () => {
  it('keeps a path of the app with its query and hash', () => {
    expect(safeNextPath('/groups/x')).toBe('/groups/x');
    expect(safeNextPath('/messages/y/z?focus=reply')).toBe('/messages/y/z?focus=reply');
    expect(safeNextPath('/groups/x/search?q=caf%C3%A9+bar#top')).toBe('/groups/x/search?q=caf%C3%A9+bar#top');
    expect(safeNextPath('/share?text=hello%20world&url=https%3A%2F%2Fexample.com')).toBe(
      '/share?text=hello%20world&url=https%3A%2F%2Fexample.com',
    );
  });

  it('refuses anything that would leave the origin', () => {
    for (const value of [
      '//evil.example',
      '//evil.example/groups/x',
      'https://evil.example/',
      'http:evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\t/evil.example',
      'javascript:alert(1)',
      ' /groups/x',
      'groups/x',
    ]) {
      expect(safeNextPath(value), value).toBeNull();
    }
  });

  it('refuses nothing, and the login screen itself', () => {
    expect(safeNextPath(null)).toBeNull();
    expect(safeNextPath('')).toBeNull();
    expect(safeNextPath('/login')).toBeNull();
    expect(safeNextPath('/login?next=%2Flogin')).toBeNull();
  });
});
