import { describe, expect, it } from 'vitest';
import { isPublicPath, parseRoute } from './route';

describe('parseRoute', () => {
  it('reads route, id and action from /{route}/{id}/{action}', () => {
    const state = parseRoute('/groups/7d2e/write', '?q=plage', '/groups/7d2e');
    expect(state).toMatchObject({
      route: 'groups',
      id: '7d2e',
      action: 'write',
      entityType: 'group',
      backUrl: '/groups/7d2e',
    });
    expect(state.search.get('q')).toBe('plage');
  });

  it('gives nulls for missing parts and the root', () => {
    expect(parseRoute('/')).toMatchObject({ route: '', id: null, action: null, entityType: null });
    expect(parseRoute('/messages/abc')).toMatchObject({
      route: 'messages',
      id: 'abc',
      action: null,
      entityType: 'message',
    });
  });
});

describe('isPublicPath', () => {
  it('lets visitors open only the public routes', () => {
    expect(isPublicPath('/login')).toBe(true);
    expect(isPublicPath('/invitation/key')).toBe(true);
    expect(isPublicPath('/public/token')).toBe(true);
    expect(isPublicPath('/groups/x')).toBe(false);
    expect(isPublicPath('/')).toBe(false);
  });
});
