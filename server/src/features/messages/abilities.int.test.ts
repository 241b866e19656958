import { Message } from '@kith/common';
import { Value } from 'typebox/value';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../test/client.js';
import { CANNOT, MAY_PIN } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import type { GroupRow } from '../../db/rows.js';

// The Message's `can` (a Kith addition): what the caller may do with it, filled by the server from
// messages/policy.ts so clients need not re-derive the rules. Every answer that carries a Message
// says it for its caller; the public view says nothing is allowed.

type Json = ApiResponse['body'];

describe('Message.can: what the caller may do (Kith addition to §2.4)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let group: GroupRow;

  const ok = (res: ApiResponse, status = 200): Json => {
    expect(res.status, res.text).toBe(status);
    return res.body;
  };
  const post = async (u: BuiltUser, data: Record<string, unknown>, parent?: string): Promise<Json> =>
    ok(await h.api.post('/messages', { key: u.key, body: { group: group.id, data, parent } }), 201);
  const read = async (u: BuiltUser, id: string): Promise<Json> =>
    ok(await h.api.get(`/messages/${id}`, { key: u.key }));

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    ben = await buildUser(h.t.ctx, { name: 'Ben' });
    group = await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] });
  });

  it('the author of a post may edit, delete and pin it; it is already on the group page, so nothing to publish', async () => {
    const message = await post(ana, { text: 'Beach day' });
    expect(message.can).toEqual({ edit: true, delete: true, publish: false, pin: true });
    expect((await read(ana, message.id)).can).toEqual({ edit: true, delete: true, publish: false, pin: true });
  });

  it('another member may only pin it, and the server agrees', async () => {
    const message = await post(ana, { text: 'Mine' });
    expect((await read(ben, message.id)).can).toEqual(MAY_PIN);
    const edit = await h.api.put(`/messages/${message.id}`, { key: ben.key, body: { data: { text: 'Yours' } } });
    expect(edit.status).toBe(403);
    const remove = await h.api.delete(`/messages/${message.id}`, { key: ben.key });
    expect(remove.status).toBe(403);
  });

  it('the author of a reply may publish it until it is published', async () => {
    const parent = await post(ana, { text: 'Parent' });
    const child = await post(ben, { text: 'Worth a post' }, parent.id);
    expect(child.can).toEqual({ edit: true, delete: true, publish: true, pin: false });
    expect((await read(ana, child.id)).can).toEqual(CANNOT);
    const published = ok(await h.api.put(`/messages/${child.id}`, { key: ben.key, body: { isInFront: true } }));
    expect(published.can).toEqual({ edit: true, delete: true, publish: false, pin: true });
  });

  it('a placeholder offers nothing to anyone, its former author included', async () => {
    const root = await post(ana, { text: 'Root' });
    const middle = await post(ben, { text: 'Gone soon' }, root.id);
    await post(ana, { text: 'Stays' }, middle.id);
    expect(ok(await h.api.delete(`/messages/${middle.id}`, { key: ben.key }), 204)).toBe('');
    expect((await read(ben, middle.id)).can).toEqual(CANNOT);
    expect((await read(ana, middle.id)).can).toEqual(CANNOT);
  });

  it('the random message of a group says it for its caller', async () => {
    const solo = await buildGroup(h.t.ctx, { name: 'Solo', members: [ana, ben] });
    ok(await h.api.post('/messages', { key: ana.key, body: { group: solo.id, data: { text: 'Only one' } } }), 201);
    expect(ok(await h.api.get(`/groups/${solo.id}/random`, { key: ana.key })).can).toEqual({
      edit: true,
      delete: true,
      publish: false,
      pin: true,
    });
    expect(ok(await h.api.get(`/groups/${solo.id}/random`, { key: ben.key })).can).toEqual(MAY_PIN);
  });

  it('the public view allows nothing, even to the author holding a key', async () => {
    const message = await post(ana, { text: 'Shared' });
    const { token } = ok(await h.api.get(`/messages/${message.id}/get-public-link`, { key: ana.key }));
    expect(ok(await h.api.get(`/public/${token}`)).can).toEqual(CANNOT);
    expect(ok(await h.api.get(`/public/${token}`, { key: ana.key })).can).toEqual(CANNOT);
  });

  it('is in the Message schema of the OpenAPI document, said to be a Kith addition, and answers match it', async () => {
    const doc = ok(await h.api.get('/openapi.json'));
    const schema = doc.paths['/api/messages/{id}'].get.responses['200'].content['application/json'].schema;
    expect(schema.required).toContain('can');
    expect(schema.properties.can.description).toMatch(/^Kith addition/);
    expect(Object.keys(schema.properties.can.properties).sort()).toEqual(['delete', 'edit', 'pin', 'publish']);
    const message = await post(ana, { text: 'Checked' });
    expect([...Value.Errors(Message, await read(ben, message.id))]).toEqual([]);
  });
});
