import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../test/client.js';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp, type TestApp } from '../../../test/harness.js';
import type { GroupRow } from '../../db/rows.js';
import { PREVIEW_IMAGE_MAX_BYTES } from '../links/preview-image.js';
import { linkPreviewsSettled } from '../links/service.js';
import { MAX_PUBLIC_GRANTS, PUBLIC_GRANT_MS } from '../grants/public-grants.js';
import { PUBLIC_COOKIE } from '../../http/cookies.js';

// Link previews with images, card pictures from the first URL, and the kith_public cookie
// (docs/api §1.8 rules 4 and 5, §1.9, §2.9, §6.1, §6.7, §7.5, §10.6). Every page and image is
// served by a node:http server on 127.0.0.1; nothing connects anywhere else.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

class Site {
  private server: http.Server | undefined;
  private port = 0;
  readonly routes = new Map<string, Handler>();
  readonly hits = new Map<string, number>();
  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      res.on('error', () => undefined);
      const handler = this.routes.get(path);
      if (handler === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
      else handler(req, res);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }
  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }
  /** A page whose og:image is `image` (relative to the site), and its title. */
  page(path: string, title: string, image?: string): string {
    const meta = image === undefined ? '' : `<meta property="og:image" content="${image}">`;
    this.routes.set(path, (_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<html><head><title>${title}</title><meta property="og:description" content="About ${title}">${meta}</head></html>`,
        );
    });
    return this.url(path);
  }
  bytes(path: string, type: string, body: Buffer): void {
    this.routes.set(path, (_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
  }
}

const HOUR = 60 * 60 * 1000;
let wide: Buffer;

/** The `name=value` of a Set-Cookie header for the public cookie, or undefined. */
function publicCookie(res: { headers: Record<string, string | string[] | number | undefined> }): string | undefined {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : typeof header === 'string' ? [header] : [];
  return all.find((c) => c.startsWith(`${PUBLIC_COOKIE}=`));
}
const cookieOf = (setCookie: string | undefined): string => (setCookie ?? '').split(';', 1)[0] ?? '';

describe('link preview images, message card pictures and kith_public grants', () => {
  const h = useTestApp({ LINK_PREVIEW_ALLOW_LOOPBACK: 'true' });
  const site = new Site();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let group: GroupRow;
  const t = (): TestApp => h.t;

  beforeAll(async () => {
    await site.start();
    wide = await sharp({ create: { width: 3000, height: 1000, channels: 3, background: { r: 10, g: 120, b: 200 } } })
      .withMetadata({ exif: { IFD0: { Copyright: 'secret camera' } } })
      .png()
      .toBuffer();
    site.bytes('/img/wide.png', 'image/png', wide);
    site.bytes('/img/logo.svg', 'image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'));
    site.bytes('/img/huge.png', 'image/png', Buffer.concat([wide, Buffer.alloc(PREVIEW_IMAGE_MAX_BYTES, 1)]));
    ana = await buildUser(t().ctx, { name: 'Ana' });
    ben = await buildUser(t().ctx, { name: 'Ben' });
    zed = await buildUser(t().ctx, { name: 'Zed' });
    group = await buildGroup(t().ctx, { members: [ana, ben] });
    await buildGroup(t().ctx, { members: [zed] });
  });
  afterAll(async () => {
    await linkPreviewsSettled(t().ctx);
    await site.stop();
  });

  const byUrl = (url: string, options: { key?: string; cookie?: string } = {}) =>
    h.api.get(`/links/by_url?url=${encodeURIComponent(url)}`, {
      ...(options.key !== undefined ? { key: options.key } : {}),
      ...(options.cookie !== undefined ? { headers: { cookie: options.cookie } } : {}),
    });
  const post = async (u: BuiltUser, data: Record<string, unknown>, files?: string[]) => {
    const res = await h.api.post('/messages', { key: u.key, body: { group: group.id, data, files } });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const read = async (u: BuiltUser, id: string) => {
    const res = await h.api.get(`/messages/${id}`, { key: u.key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const share = async (id: string): Promise<string> => {
    const res = await h.api.get(`/messages/${id}/get-public-link`, { key: ana.key });
    expect(res.status, res.text).toBe(200);
    return res.body.token as string;
  };
  const visit = (token: string, cookie?: string) =>
    h.api.get(`/public/${token}`, cookie === undefined ? {} : { headers: { cookie } });
  const image = (id: string, headers: Record<string, string>) =>
    t().app.inject({ method: 'GET', url: `/api/images/crop/80/80/${id}`, headers });
  const fileAs = (id: string, options: { key?: string; cookie?: string }): Promise<ApiResponse> =>
    h.api.get(`/files/${id}`, {
      ...(options.key !== undefined ? { key: options.key } : {}),
      ...(options.cookie !== undefined ? { headers: { cookie: options.cookie } } : {}),
    });
  const uploadPng = async (u: BuiltUser): Promise<string> => {
    const boundary = 'kith-test-boundary';
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c00' } })
      .png()
      .toBuffer();
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await t().app.inject({
      method: 'POST',
      url: '/api/files',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-auth-token': u.key },
      payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    return (JSON.parse(res.body) as { id: string }).id;
  };

  describe('preview images (§2.9, §7.5)', () => {
    it('stores the og:image as a JPEG of at most 2048 px without metadata, readable by any signed-in user', async () => {
      const url = site.page('/tide.html', 'Tide tables', '/img/wide.png');
      const res = await byUrl(url, { key: ana.key });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.image).toBe(site.url('/img/wide.png'));
      expect(res.body.preview).toEqual({ id: expect.any(String), entityType: 'file' });
      const fileId = res.body.preview.id as string;

      // Rule 4: Zed shares nothing with anyone, and still reads it.
      const file = await fileAs(fileId, { key: zed.key });
      expect(file.status, file.text).toBe(200);
      expect(file.body).toMatchObject({ id: fileId, type: 'image/jpeg', status: 'ready' });
      const bytes = await t().app.inject({ method: 'GET', url: `/files/${file.body.contentUrl}` });
      expect(bytes.statusCode).toBe(200);
      const meta = await sharp(bytes.rawPayload).metadata();
      expect(meta).toMatchObject({ format: 'jpeg', width: 2048, height: 683 });
      expect(meta.exif).toBeUndefined();
      expect((await image(fileId, { 'x-auth-token': zed.key })).statusCode).toBe(200);
      const row = await t().ctx.db.kysely.selectFrom('files').selectAll().where('id', '=', fileId).executeTakeFirst();
      expect(row).toMatchObject({ uploader_id: null, kind: 'image', ext: 'jpg' });

      // Served from storage afterwards: the image is not fetched again.
      const again = await byUrl(url, { key: ben.key });
      expect(again.body.preview).toEqual({ id: fileId, entityType: 'file' });
      expect(site.hits.get('/img/wide.png')).toBe(1);
    });

    it('keeps preview "" when the image is missing, not a raster image, or over 10 MiB', async () => {
      for (const [path, img] of [
        ['/missing.html', '/img/none.png'],
        ['/svg.html', '/img/logo.svg'],
        ['/huge.html', '/img/huge.png'],
      ] as const) {
        const res = await byUrl(site.page(path, 'No picture', img), { key: ana.key });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.title).toBe('No picture');
        expect(res.body.preview, path).toBe('');
      }
    });

    it('never reads a preview image from a data: URI or another scheme', async () => {
      const res = await byUrl(site.page('/data.html', 'Inline', 'data:image/png;base64,iVBORw0KGgo='), {
        key: ana.key,
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.preview).toBe('');
    });
  });

  describe('card picture from the first URL (§6.1, §10.6)', () => {
    it('fetches the first URL in the background and shows its image as preview on the message, card and feed', async () => {
      const first = site.page('/first.html', 'First page', '/img/wide.png');
      const second = site.page('/second.html', 'Second page', '/img/wide.png');
      const created = await post(ana, { text: `look (${first}) and ${second}` });
      await linkPreviewsSettled(t().ctx);
      const link = await t()
        .ctx.db.kysely.selectFrom('links')
        .selectAll()
        .where('url', '=', first)
        .executeTakeFirstOrThrow();
      expect(link.preview_file_id).not.toBeNull();
      const message = await read(ben, created.id);
      expect(message.files).toEqual([]);
      expect(message.preview).toMatchObject({ id: link.preview_file_id, entityType: 'file', type: 'image/jpeg' });
      const card = await h.api.get(`/messages/${created.id}/preview`, { key: ben.key });
      expect(card.body.preview.id).toBe(link.preview_file_id);
      const feed = await h.api.get(`/groups/${group.id}/feed`, { key: ben.key });
      const item = (feed.body.messages as { id: string; preview: { id: string } | null }[]).find(
        (m) => m.id === created.id,
      );
      expect(item?.preview?.id).toBe(link.preview_file_id);
      // Only the first URL is fetched for the card.
      expect(site.hits.get('/second.html') ?? 0).toBe(0);
    });

    it('prefers an attached file, and follows an edit of the text', async () => {
      const page = site.page('/edit-a.html', 'Edit A', '/img/wide.png');
      const fileId = await uploadPng(ana);
      const withFile = await post(ana, { text: page }, [fileId]);
      await linkPreviewsSettled(t().ctx);
      expect((await read(ana, withFile.id)).preview.id).toBe(fileId);

      const plain = await post(ana, { text: 'no link yet' });
      expect((await read(ana, plain.id)).preview).toBeNull();
      const edited = await h.api.put(`/messages/${plain.id}`, {
        key: ana.key,
        body: { data: { text: `now ${page}` } },
      });
      expect(edited.status, edited.text).toBe(200);
      await linkPreviewsSettled(t().ctx);
      const link = await t()
        .ctx.db.kysely.selectFrom('links')
        .selectAll()
        .where('url', '=', page)
        .executeTakeFirstOrThrow();
      expect((await read(ana, plain.id)).preview.id).toBe(link.preview_file_id);
    });

    it('titles the notification with the link preview when the message has no title (§2.7)', async () => {
      const page = site.page('/titled.html', 'A page title', '/img/wide.png');
      expect((await byUrl(page, { key: ana.key })).status).toBe(200);
      const created = await post(ana, { text: `${page} is worth a look` });
      await linkPreviewsSettled(t().ctx);
      const list = await h.api.get('/me/notifications', { key: ben.key });
      const notification = (list.body as { target: string; title: string }[]).find((n) => n.target === created.id);
      expect(notification?.title).toBe('A page title');
    });
  });

  describe('kith_public grants (§1.9, §6.7)', () => {
    it('sets the cookie with its attributes and opens the shared message files, thumbnails, card picture and links', async () => {
      const page = site.page('/public.html', 'Public page', '/img/wide.png');
      const other = site.page('/other.html', 'Other page', '/img/wide.png');
      const fileId = await uploadPng(ana);
      const withFile = await post(ana, { text: `with ${page}` }, [fileId]);
      const withLink = await post(ana, { text: `see ${page}` });
      const notShared = await post(ana, { text: `see ${other}` }, [await uploadPng(ana)]);
      await linkPreviewsSettled(t().ctx);
      await byUrl(other, { key: ana.key });

      const res = await visit(await share(withFile.id));
      expect(res.status, res.text).toBe(200);
      const setCookie = publicCookie(res);
      expect(setCookie).toMatch(new RegExp(`^${PUBLIC_COOKIE}=[^;]+; HttpOnly; SameSite=Lax; Path=/$`));
      let cookie = cookieOf(setCookie);
      const second = await visit(await share(withLink.id), cookie);
      expect(second.body.preview).toMatchObject({ entityType: 'file', type: 'image/jpeg' });
      cookie = cookieOf(publicCookie(second));
      const previewId = second.body.preview.id as string;

      // Both grants at once: attachment, its thumbnail, the card picture and its thumbnail.
      expect((await fileAs(fileId, { cookie })).status).toBe(200);
      expect((await image(fileId, { cookie })).statusCode).toBe(200);
      expect((await fileAs(previewId, { cookie })).status).toBe(200);
      expect((await image(previewId, { cookie })).statusCode).toBe(200);
      // The link preview of a URL in the text, and nothing else.
      const link = await byUrl(page, { cookie });
      expect(link.status, link.text).toBe(200);
      expect(link.body.preview).toEqual({ id: previewId, entityType: 'file' });
      expectError(await byUrl(other, { cookie }), 401, 'auth_required');
      // Files of a message that was not shared.
      const hidden = (await read(ana, notShared.id)).files[0].id as string;
      expectError(await fileAs(hidden, { cookie }), 404, 'not_found');
      expect((await image(hidden, { cookie })).statusCode).toBe(404);
      // No cookie, no grant: 401.
      expectError(await fileAs(fileId, {}), 401, 'auth_required');
      expect((await image(fileId, {})).statusCode).toBe(401);
      // A forged cookie is ignored.
      const forged = cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
      expectError(await fileAs(fileId, { cookie: forged }), 404, 'not_found');
    });

    it('stops at once when the link is revoked, and after 24 hours', async () => {
      const fileId = await uploadPng(ana);
      const message = await post(ana, { text: 'revoke me' }, [fileId]);
      const token = await share(message.id);
      const cookie = cookieOf(publicCookie(await visit(token)));
      expect((await fileAs(fileId, { cookie })).status).toBe(200);
      expect((await h.api.delete(`/messages/${message.id}/public-link`, { key: ana.key })).status).toBe(204);
      expectError(await fileAs(fileId, { cookie }), 404, 'not_found');
      expect((await image(fileId, { cookie })).statusCode).toBe(404);
      // A new link of the same message does not revive the old grant.
      await share(message.id);
      expectError(await fileAs(fileId, { cookie }), 404, 'not_found');

      const later = await post(ana, { text: 'expires' }, [await uploadPng(ana)]);
      const laterFile = (await read(ana, later.id)).files[0].id as string;
      const fresh = cookieOf(publicCookie(await visit(await share(later.id))));
      t().clock.advance(PUBLIC_GRANT_MS - HOUR);
      expect((await fileAs(laterFile, { cookie: fresh })).status).toBe(200);
      t().clock.advance(2 * HOUR);
      expectError(await fileAs(laterFile, { cookie: fresh }), 404, 'not_found');
    });

    it('keeps the 10 newest grants', async () => {
      const files: string[] = [];
      let cookie = '';
      for (let i = 0; i <= MAX_PUBLIC_GRANTS; i += 1) {
        const fileId = await uploadPng(ana);
        files.push(fileId);
        const message = await post(ana, { text: `grant ${i}` }, [fileId]);
        t().clock.advance(1000);
        cookie = cookieOf(publicCookie(await visit(await share(message.id), cookie === '' ? undefined : cookie)));
      }
      expectError(await fileAs(files[0] ?? '', { cookie }), 404, 'not_found');
      for (const id of files.slice(1)) expect((await fileAs(id, { cookie })).status).toBe(200);
    });

    it('a signed-in caller keeps their own rights and may also use a grant', async () => {
      const fileId = await uploadPng(ana);
      const message = await post(ana, { text: 'for zed' }, [fileId]);
      expectError(await fileAs(fileId, { key: zed.key }), 404, 'not_found');
      const cookie = cookieOf(publicCookie(await visit(await share(message.id))));
      expect((await fileAs(fileId, { key: zed.key, cookie })).status).toBe(200);
    });
  });
});
