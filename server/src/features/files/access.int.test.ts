import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../test/client.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import { uploadFile } from '../../../test/uploads.js';
import { MEDIA_COOKIE } from '../../http/cookies.js';
import { PUBLIC_COOKIE } from '../../http/cookies.js';

// Bytes, metadata, thumbnails and crops ask one module (access.ts) who may read a file (contract
// §1.8, §1.9). These tests read one file through all four doors as each kind of caller and check
// that the doors agree.

/** How a caller shows up: an API key, cookies, both or nothing. */
interface Caller {
  key?: string;
  cookies?: string[];
}

/** What each door answered (HTTP status). */
interface Outcome {
  metadata: number;
  thumbnail: number;
  crop: number;
  bytes: number;
}

/** The `name=value` of the Set-Cookie for `name` on an answer, as a browser sends it back. */
function cookieFrom(res: ApiResponse, name: string): string {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : typeof header === 'string' ? [header] : [];
  const found = all.find((c) => c.startsWith(`${name}=`));
  if (found === undefined) throw new Error(`no ${name} cookie on the answer`);
  return found.split(';', 1)[0] ?? '';
}

const allowed: Outcome = { metadata: 200, thumbnail: 200, crop: 200, bytes: 200 };
const hidden: Outcome = { metadata: 404, thumbnail: 404, crop: 404, bytes: 404 };

describe('who may read a file: bytes, metadata, thumbnails and crops agree (§1.8, §1.9)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let zed: BuiltUser;
  let photo: { id: string; ext: string };
  let draft: { id: string; ext: string };
  let avatar: { id: string; ext: string };
  let messageId: string;

  const upload = async (user: BuiltUser, name: string) => {
    const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c03030' } })
      .jpeg()
      .toBuffer();
    const res = await uploadFile(h.t, user.key, image, name);
    expect(res.status, res.text).toBe(201);
    return { id: res.body.id as string, ext: 'jpg' };
  };

  /** The four doors, as `caller`. Bytes use the signed name the metadata handed out, if any. */
  const readAll = async (caller: Caller, file: { id: string; ext: string }): Promise<Outcome> => {
    const headers: Record<string, string> = {};
    if (caller.key !== undefined) headers['x-auth-token'] = caller.key;
    if (caller.cookies !== undefined) headers.cookie = caller.cookies.join('; ');
    const get = (url: string) => h.t.app.inject({ method: 'GET', url, headers });
    const metadata = await get(`/api/files/${file.id}`);
    const thumbnail = await get(`/api/images/thumbnail/720/99999/${file.id}`);
    const crop = await get(`/api/images/crop/160/160/${file.id}`);
    // Without a signed name of its own, a caller can only try the bare name of the bytes.
    const name =
      metadata.statusCode === 200
        ? (JSON.parse(metadata.body) as { contentUrl: string }).contentUrl
        : `${file.id}.${file.ext}`;
    const bytes = await get(`/files/${name}`);
    return {
      metadata: metadata.statusCode,
      thumbnail: thumbnail.statusCode,
      crop: crop.statusCode,
      bytes: bytes.statusCode,
    };
  };

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    zed = await buildUser(h.t.ctx, { name: 'Zed' });
    const family = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
    await buildGroup(h.t.ctx, { name: 'Elsewhere', members: [zed] });
    photo = await upload(ana, 'beach.jpg');
    draft = await upload(ana, 'draft.jpg');
    avatar = await upload(ben, 'me.jpg');
    const posted = await h.api.post('/messages', {
      key: ana.key,
      body: { group: family.id, data: { text: 'Beach day' }, files: [photo.id] },
    });
    expect(posted.status, posted.text).toBe(201);
    messageId = posted.body.id;
    const me = await h.api.put(`/users/${ben.user.id}`, { key: ben.key, body: { avatar: avatar.id } });
    expect(me.status, me.text).toBe(200);
  });

  it('the uploader reads an attached file and an unattached one everywhere', async () => {
    expect(await readAll({ key: ana.key }, photo)).toEqual(allowed);
    expect(await readAll({ key: ana.key }, draft)).toEqual(allowed);
  });

  it('a member of the group where it is attached reads it everywhere, but not the uploader’s other files', async () => {
    expect(await readAll({ key: ben.key }, photo)).toEqual(allowed);
    expect(await readAll({ key: ben.key }, draft)).toEqual(hidden);
  });

  it('an avatar is readable by users who can see its owner, and by nobody else', async () => {
    expect(await readAll({ key: ana.key }, avatar)).toEqual(allowed);
    expect(await readAll({ key: zed.key }, avatar)).toEqual(hidden);
  });

  it('an outsider gets 404 from every door, as for a file that does not exist', async () => {
    expect(await readAll({ key: zed.key }, photo)).toEqual(hidden);
  });

  it('a visitor without key or cookie: 401 from the API doors, 404 for unsigned bytes', async () => {
    expect(await readAll({}, photo)).toEqual({ metadata: 401, thumbnail: 401, crop: 401, bytes: 404 });
  });

  it('the media cookie opens pictures exactly as its holder’s key does; metadata never reads it (§1.9)', async () => {
    const benCookie = cookieFrom(await h.api.get('/me', { key: ben.key }), MEDIA_COOKIE);
    const zedCookie = cookieFrom(await h.api.get('/me', { key: zed.key }), MEDIA_COOKIE);
    const pictures = async (cookie: string) => {
      const { thumbnail, crop } = await readAll({ cookies: [cookie] }, photo);
      return { thumbnail, crop };
    };
    expect(await pictures(benCookie)).toEqual({ thumbnail: 200, crop: 200 });
    expect(await pictures(zedCookie)).toEqual({ thumbnail: 404, crop: 404 });
    // The metadata door answers as if no credential came, so bytes get no signed name either.
    expect((await readAll({ cookies: [benCookie] }, photo)).metadata).toBe(401);
    expect((await readAll({ cookies: [benCookie] }, photo)).bytes).toBe(404);
  });

  it('a public-link grant opens the message’s files everywhere, and nothing else; revoking it closes them', async () => {
    const link = await h.api.get(`/messages/${messageId}/get-public-link`, { key: ana.key });
    expect(link.status, link.text).toBe(200);
    const opened = await h.api.get(`/public/${link.body.token}`);
    expect(opened.status, opened.text).toBe(200);
    const grant = cookieFrom(opened, PUBLIC_COOKIE);

    expect(await readAll({ cookies: [grant] }, photo)).toEqual(allowed);
    expect(await readAll({ cookies: [grant] }, draft)).toEqual(hidden);
    // A grant counts beside a key that cannot read the file on its own.
    expect(await readAll({ key: zed.key, cookies: [grant] }, photo)).toEqual(allowed);
    // A key that is not valid is refused, never replaced by the grant.
    const badKey = await readAll({ key: 'not-a-valid-key-at-all-xxxxxxxxxxxxxxxxxxxx', cookies: [grant] }, photo);
    expect(badKey).toEqual({ metadata: 401, thumbnail: 401, crop: 401, bytes: 404 });

    const revoked = await h.api.delete(`/messages/${messageId}/public-link`, { key: ana.key });
    expect(revoked.status, revoked.text).toBe(204);
    expect(await readAll({ cookies: [grant] }, photo)).toEqual(hidden);
  });
});
