import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { createTestApp, useTestApp, type TestApp } from '../../../test/harness.js';
import { runDigestSchedule } from '../digests/service.js';

// Light formatting (issue 20, common/src/markup.ts): texts are stored as written; search, snippets,
// notification titles, e-mails and link previews read them as plain text.

const FORMATTED = '**Picnic** on _Sunday_:\n- bring *plates*\n> [the map](https://maps.example/park_(north))';

describe('search in formatted texts (§10.7)', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let groupId: string;
  let picnic: string;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana' });
    groupId = (await buildGroup(h.t.ctx, { members: [ana] })).id;
    const res = await h.api.post('/messages', { key: ana.key, body: { group: groupId, data: { text: FORMATTED } } });
    expect(res.status, res.text).toBe(201);
    picnic = res.body.id as string;
    // A message whose only "words" would be markers.
    const markers = await h.api.post('/messages', {
      key: ana.key,
      body: { group: groupId, data: { text: '** __ * [ ]( ) > - 1.' } },
    });
    expect(markers.status).toBe(201);
  });

  const search = (search: string) => h.api.post('/messages/search', { key: ana.key, body: { group: groupId, search } });

  it('finds a bold, italic, listed or linked word by the word alone', async () => {
    for (const word of ['picnic', 'sunday', 'plates', 'map', 'north']) {
      const res = await search(word);
      expect(res.status).toBe(200);
      expect(
        (res.body.messages as { id: string }[]).map((m) => m.id),
        word,
      ).toEqual([picnic]);
    }
  });

  it('stores the text as written', async () => {
    const res = await h.api.get(`/messages/${picnic}`, { key: ana.key });
    expect((res.body.data as { text: string }).text).toBe(FORMATTED);
  });

  it('quotes the plain text in the snippet, the highlight on the word', async () => {
    const res = await search('plates');
    const [hit] = res.body.messages as { snippet: { text: string; highlights: [number, number][] } }[];
    expect(hit?.snippet.text).toBe('Picnic on Sunday: - bring plates > the map (https://maps.example/park_(north))');
    const [range] = hit?.snippet.highlights ?? [];
    expect(hit?.snippet.text.slice(range?.[0], range?.[1])).toBe('plates');
  });

  it('makes no term of a marker', async () => {
    for (const markers of ['**', '*', '_', '[', '](', '>', '**+](']) {
      const res = await search(markers);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ messages: [], totalItems: 0, searchterms: [] });
    }
  });
});

describe('notification titles and digest e-mails of formatted texts (§2.7, §10.8)', () => {
  let t: TestApp;
  let api: ApiClient;
  let ana: BuiltUser;
  let ben: BuiltUser;

  beforeAll(async () => {
    t = await createTestApp({ TIME_ZONE: 'UTC' });
    api = new ApiClient(t.app);
    t.clock.set(Date.parse('2026-03-02T05:30:00Z'));
    await runDigestSchedule(t.ctx);
    ana = await buildUser(t.ctx, { name: 'Ana', notificationEmails: 'hourly' });
    ben = await buildUser(t.ctx, { name: 'Ben' });
    const groupId = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
    const res = await api.post('/messages', { key: ben.key, body: { group: groupId, data: { text: FORMATTED } } });
    expect(res.status, res.text).toBe(201);
  });
  afterAll(() => t.close());

  const PLAIN = 'Picnic on Sunday: - bring plates > the map (https://maps.example/park_(north))';

  it('titles the notification with the plain text', async () => {
    const res = await api.get('/me/notifications', { key: ana.key });
    expect((res.body as { title: string }[]).map((n) => n.title)).toEqual([PLAIN]);
  });

  it('lists the message in the digest as plain text, in both parts', async () => {
    t.clock.set(Date.parse('2026-03-02T06:00:00Z'));
    await runDigestSchedule(t.ctx);
    await t.ctx.jobs.drain();
    const mail = t.mailer.sent.find((m) => m.kind === 'digest' && m.to === ana.user.login);
    if (mail === undefined) throw new Error('no digest');
    expect(mail.text).toContain(PLAIN);
    expect(mail.html).toContain('Picnic on Sunday: - bring plates &gt; the map');
    for (const part of [mail.text, mail.html]) {
      expect(part).not.toContain('**');
      expect(part).not.toContain('](');
    }
  });
});

describe('the link preview of a formatted text (§10.6)', () => {
  const h = useTestApp({ LINK_PREVIEW_ALLOW_LOOPBACK: 'true' });
  let ana: BuiltUser;
  let groupId: string;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx);
    groupId = (await buildGroup(h.t.ctx, { members: [ana] })).id;
  });

  const queuedUrls = async () =>
    (await h.t.ctx.db.kysely.selectFrom('jobs').select('payload').where('name', '=', 'link-preview').execute()).map(
      (row) => (JSON.parse(row.payload) as { url: string }).url,
    );

  it('fetches the target of [text](url), without the closing parenthesis or what follows', async () => {
    const text = '**Read** [the notes](http://127.0.0.1:9/notes_(v2)). Thanks';
    const res = await h.api.post('/messages', { key: ana.key, body: { group: groupId, data: { text } } });
    expect(res.status, res.text).toBe(201);
    expect(await queuedUrls()).toEqual(['http://127.0.0.1:9/notes_(v2)']);
  });
});
