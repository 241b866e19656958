import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { buildUser } from '../../../test/factories.js';

describe('GET /api/info', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp({
      UPLOAD_VIDEO: 'false',
      SHOW_INVITATION_LINKS: 'false',
      DEFAULT_LANG: 'fr_FR',
      UPLOAD_MAX_PDF_MB: '7',
      LINK_PREVIEWS: 'false',
    });
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('answers anyone with the instance settings', async () => {
    const res = await api.get('/info');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      compat: 'zusam-0.5.6',
      upload: { image: true, video: false, pdf: true, audio: true },
      default_lang: 'fr_FR',
      allow_email: true,
      show: { group_invitation_links: false, public_links: true, link_previews: false },
      limits: { text: 50000, title: 500, name: 128, passwordMin: 8, passwordMax: 128, filesPerMessage: 200 },
    });
    expect(res.body.limits.uploadBytes.pdf).toBe(7 * 1024 * 1024);
  });

  it('says when link previews are on', async () => {
    const other = await createTestApp({ LINK_PREVIEWS: 'true' });
    try {
      const res = await new ApiClient(other.app).get('/info');
      expect(res.body.show).toEqual({ group_invitation_links: true, public_links: true, link_previews: true });
    } finally {
      await other.close();
    }
  });

  it('ignores a stale key instead of failing', async () => {
    const res = await api.get('/info', { key: 'not-a-real-key' });
    expect(res.status).toBe(200);
  });

  it('serves a signed-in user too', async () => {
    const { key } = await buildUser(t.ctx);
    expect((await api.get('/info', { key })).status).toBe(200);
  });
});
