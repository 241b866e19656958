import { Group, Info, Me, Notification, UserRef } from '@kith/common';
import { Type, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test/client.js';
import { expectError } from '../../test/expect.js';
import { buildGroup, buildUser } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

/** Fails with the schema's complaints when a real answer does not match the contract's schema. */
function expectMatches(schema: TSchema, body: unknown): void {
  const errors = [...Value.Errors(schema, body)].map((e) => JSON.stringify(e));
  expect(errors).toEqual([]);
}

describe('OpenAPI document and docs page (docs/api §11.5)', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('serves an OpenAPI 3.1 document of every route, keyed by X-AUTH-TOKEN', async () => {
    const res = await api.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-AUTH-TOKEN' });
    const operations = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/info',
        'GET /api/health',
        'GET /api/health/ready',
        'POST /api/login',
        'POST /api/signup',
        'POST /api/password-reset-mail',
        'POST /api/new-password',
        'GET /api/stop-notification-emails',
        'GET /api/stop-notification-emails/{userId}/{token}',
        'POST /api/stop-notification-emails/{userId}/{token}',
        'GET /api/me',
        'GET /api/users/{id}',
        'PUT /api/users/{id}',
        'DELETE /api/users/{id}',
        'POST /api/users/{id}/reset-api-key',
        'POST /api/groups',
        'GET /api/groups/{id}',
        'PUT /api/groups/{id}',
        'POST /api/groups/{id}/leave',
        'POST /api/groups/{id}/reset-invite-key',
        'POST /api/groups/invitation/{key}',
        'GET /api/me/notifications',
        'GET /api/me/notifications/{limit}',
        'POST /api/me/notifications/read-all',
        'GET /api/notifications/{id}',
        'PUT /api/notifications/{id}',
        'DELETE /api/notifications/{id}',
        'POST /api/messages',
        'GET /api/messages/{id}',
        'PUT /api/messages/{id}',
        'DELETE /api/messages/{id}',
        'GET /api/messages/{id}/preview',
        'GET /api/messages/{id}/get-public-link',
        'DELETE /api/messages/{id}/public-link',
        'POST /api/messages/{id}/reactions',
        'GET /api/messages/{id}/reactions',
        'DELETE /api/messages/{id}/reactions/{reactionId}',
        'GET /api/public/{token}',
        'GET /api/groups/{id}/page/{page}',
        'GET /api/groups/{id}/feed',
        'GET /api/groups/{id}/random',
        'GET /api/feed/page/{page}',
        'GET /api/feed',
        'POST /api/bookmarks',
        'DELETE /api/bookmarks/{id}',
        'GET /api/me/bookmarks',
        'GET /api/me/bookmarks/{limit}',
        'POST /api/messages/search',
        'GET /api/events',
        'POST /api/files',
        'GET /api/files/{id}',
        'GET /api/images/{type}/{w}/{h}/{id}',
        'GET /api/links/by_url',
        'GET /api/me/push-subscriptions',
        'POST /api/me/push-subscriptions',
        'DELETE /api/me/push-subscriptions/{id}',
        'PUT /api/me/presence',
        'GET /api/me/exports',
        'POST /api/me/exports',
        'GET /api/me/exports/{id}/download',
        'GET /api/me/storage',
      ].sort(),
    );
    // Keyed routes say so; open ones do not.
    expect(res.body.paths['/api/me'].get.security).toEqual([{ apiKey: [] }]);
    expect(res.body.paths['/api/login'].post.security).toBeUndefined();
    // Every route documents the error envelope.
    expect(res.body.paths['/api/groups/{id}'].get.responses['404']).toBeDefined();
  });

  it('serves the docs page with assets from Kith itself', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toBeDefined();
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset, 'no third-party CDN').not.toMatch(/^(https?:)?\/\//);
      const url = asset.startsWith('/') ? asset : `/api/docs/${asset.replace(/^\.\//, '')}`;
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
  });

  it('answers the contract schemas with real data', async () => {
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    await api.put(`/groups/${group.id}`, { key: ben.key, body: { name: 'Renamed' } });
    await api.put(`/users/${ana.user.id}`, {
      key: ana.key,
      body: { data: { lang: 'fr_FR', notification_emails: 'daily' } },
    });

    expectMatches(Info, (await api.get('/info')).body);
    expectMatches(Me, (await api.get('/me', { key: ana.key })).body);
    expectMatches(UserRef, (await api.get(`/users/${ben.user.id}`, { key: ana.key })).body);
    expectMatches(Group, (await api.get(`/groups/${group.id}`, { key: ana.key })).body);
    const notifications = (await api.get('/me/notifications/21', { key: ana.key })).body;
    expect(notifications.length).toBeGreaterThan(0);
    expectMatches(Type.Array(Notification), notifications);
  });
});

describe('with API_DOCS=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ API_DOCS: 'false' });
  });
  afterAll(() => t.close());

  it('answers route_not_found for the document and the page', async () => {
    const api = new ApiClient(t.app);
    expectError(await api.get('/openapi.json'), 404, 'route_not_found');
    expectError(await api.get('/docs'), 404, 'route_not_found');
  });
});
