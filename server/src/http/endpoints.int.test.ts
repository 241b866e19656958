import { endpoints, type Endpoint, type EndpointKey } from '@kith/common';
import { describe, expect, it } from 'vitest';
import { expectError } from '../../test/expect.js';
import { useTestApp } from '../../test/harness.js';
import { endpointRoute } from './route.js';

const table = Object.entries(endpoints) as [EndpointKey, Endpoint][];
const SOME_ID = '0c8a7b4e-5d3f-4a1b-9c2d-3e4f5a6b7c8d';

/** A concrete URL for an endpoint, relative to the API client's `/api` prefix. */
function concrete(key: EndpointKey): { method: string; url: string } {
  const { method, path } = endpointRoute(key);
  const sample: Record<string, string> = { name: `${SOME_ID}.jpg`, type: 'crop', w: '100', h: '100' };
  const filled = path.replace(/:(\w+)/g, (_match, name: string) => sample[name] ?? SOME_ID);
  // The test client puts /api in front; only the table's API endpoints are called through it.
  return { method, url: filled.replace(/^\/api\//, '/') };
}

describe('the endpoint table (common/src/api/endpoints.ts) and the registered routes', () => {
  const test = useTestApp();

  it('are the same, both ways', () => {
    // HEAD routes are Fastify's own copies of the GETs; the docs routes document the table itself;
    // /metrics is the operator's scraper's, outside the member API (docs/api §3.7).
    const registered = test.t.app.registeredRoutes
      .filter((r) => r.method !== 'HEAD' && !/^\/api\/(openapi\.json|docs)/.test(r.url) && r.url !== '/metrics')
      .map((r) => `${r.method} ${r.url}`)
      .sort();
    const declared = table.map(([key]) => {
      const { method, path } = endpointRoute(key);
      return `${method} ${path}`;
    });
    expect(registered).toEqual(declared.sort());
  });

  it('registers every route with the authentication its endpoint declares', () => {
    for (const [key, endpoint] of table) {
      const { method, path } = endpointRoute(key);
      const route = test.t.app.registeredRoutes.find((r) => r.method === method && r.url === path);
      expect(route?.auth, key).toBe(endpoint.auth);
    }
  });

  it.each(table.filter(([, endpoint]) => endpoint.auth !== 'anyone'))(
    '%s answers 401 without a key, and 401 invalid_api_key with a dead one',
    async (key) => {
      const { method, url } = concrete(key);
      const body = method === 'POST' || method === 'PUT' ? {} : undefined;
      expectError(await test.api.request(method, url, { body }), 401, 'auth_required');
      expectError(await test.api.request(method, url, { body, key: 'not-a-live-key' }), 401, 'invalid_api_key');
    },
  );

  it('documents in the OpenAPI document the security each endpoint declares', async () => {
    const doc = (await test.api.get('/openapi.json')).body as {
      paths: Record<string, Record<string, { security?: unknown }>>;
    };
    const expected = {
      key: [{ apiKey: [] }],
      grant: [{ apiKey: [] }, { mediaCookie: [] }, { publicGrant: [] }],
      anyone: undefined,
    };
    for (const [key, endpoint] of table) {
      if (endpoint.hidden === true) continue;
      const [method = '', path = ''] = key.split(' ');
      const operation = doc.paths[path]?.[method.toLowerCase()];
      expect(operation, key).toBeDefined();
      expect(operation?.security, key).toEqual(expected[endpoint.auth]);
    }
  });

  it('leaves the routes that declare no key open', async () => {
    const { method, url } = concrete('GET /api/info');
    expect((await test.api.request(method, url)).status).toBe(200);
  });
});
