/**
 * The `events` scenario (issue 7, item 2): many open `GET /api/events` streams on one server, then
 * one new post, and the time until every stream that should receive its `message` event got it.
 *
 * Streams are read with plain `node:http` (one socket each, no agent pooling, no fetch machinery),
 * so thousands of them stay cheap in the runner. A post reaches the streams of its group's members
 * only (docs/api §11.4), so the post goes into the group that has the most streaming members and the
 * latency is measured over those streams; how many streams were open in all is reported beside it.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { quantile } from './load.ts';
import { BENCH_TITLE_PREFIX } from './scenarios.ts';
import { RssSampler } from './server.ts';
import type { ManifestUser } from './types.ts';

interface Stream {
  userId: string;
  req: ClientRequest;
  res: IncomingMessage | null;
  /** Text received since the last check, searched for the post's marker. */
  buffer: string;
  /** ms after the post was sent; null until the event arrived. */
  deliveredMs: number | null;
  closedEarly: boolean;
}

export interface EventsOptions {
  /** Base URL of the server. */
  url: string;
  /** The server processes whose memory is sampled. */
  pids: number[];
  /** The users who open streams, `perUser` each. */
  users: ManifestUser[];
  perUser: number;
  /** How the runner learns each group's streaming members: the group with the most is used. */
  pickGroup: (userIds: string[]) => Promise<{ groupId: string; memberIds: string[] } | null>;
  /** How long to wait for the deliveries (ms). */
  timeoutMs: number;
  /** Pause between the last stream opened and the post (ms). */
  settleMs: number;
}

export interface EventsResult {
  /** Streams opened per second. */
  rps: number | null;
  /** Delivery latency across the receiving streams (ms after the post was sent). */
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  rss_mb: number | null;
  errors: number;
  details: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function openStream(url: URL, user: ManifestUser, onReady: (stream: Stream, status: number) => void): Stream {
  const stream: Stream = {
    userId: user.id,
    req: null as unknown as ClientRequest,
    res: null,
    buffer: '',
    deliveredMs: null,
    closedEarly: false,
  };
  stream.req = request(
    {
      host: url.hostname,
      port: url.port,
      path: '/api/events',
      method: 'GET',
      headers: { 'x-auth-token': user.apiKey, accept: 'text/event-stream' },
      agent: false,
    },
    (res) => {
      stream.res = res;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (stream.deliveredMs === null) stream.buffer += chunk;
      });
      res.on('close', () => {
        stream.closedEarly = true;
      });
      onReady(stream, res.statusCode ?? 0);
    },
  );
  stream.req.on('error', () => {
    stream.closedEarly = true;
    onReady(stream, 0);
  });
  stream.req.end();
  return stream;
}

export async function runEvents(options: EventsOptions): Promise<EventsResult> {
  const url = new URL(options.url);
  const sampler = new RssSampler(options.pids);
  const streams: Stream[] = [];
  const badStatuses: Record<string, number> = {};
  try {
    // 1. Open the streams, 100 at a time; a stream counts as open once its 200 headers arrived.
    const queue = options.users.flatMap((user) => Array.from({ length: options.perUser }, () => user));
    const total = queue.length;
    let opened = 0;
    let failed = 0;
    const openStarted = performance.now();
    await new Promise<void>((resolve) => {
      let next = 0;
      let settled = 0;
      const launch = () => {
        const user = queue[next++];
        if (user === undefined) return;
        let done = false;
        streams.push(
          openStream(url, user, (_stream, status) => {
            if (done) return;
            done = true;
            if (status === 200) opened += 1;
            else {
              failed += 1;
              badStatuses[String(status)] = (badStatuses[String(status)] ?? 0) + 1;
            }
            settled += 1;
            if (settled === total) resolve();
            else launch();
          }),
        );
      };
      if (total === 0) resolve();
      for (let i = 0; i < Math.min(100, total); i += 1) launch();
    });
    const openSeconds = (performance.now() - openStarted) / 1000;
    await sleep(options.settleMs);

    // 2. The group with the most streaming members, and one of them to post.
    const streamingUsers = [...new Set(options.users.map((u) => u.id))];
    const picked = await options.pickGroup(streamingUsers);
    if (picked === null) throw new Error('no group has a streaming member');
    const members = new Set(picked.memberIds);
    const poster = options.users.find((u) => members.has(u.id));
    if (poster === undefined) throw new Error('no streaming member can post');
    const receivers = streams.filter((s) => members.has(s.userId) && s.res !== null && !s.closedEarly);
    for (const s of streams) s.buffer = '';

    // 3. Post; each receiving stream watches for the marker in its `message` frame.
    const marker = `${BENCH_TITLE_PREFIX}event-${randomUUID()}`;
    const t0 = performance.now();
    let pending = receivers.length;
    let allDone: () => void = () => undefined;
    const everyone = new Promise<void>((resolve) => {
      allDone = resolve;
      if (pending === 0) resolve();
    });
    for (const s of receivers) {
      s.res?.on('data', () => {
        if (s.deliveredMs !== null) return;
        // The notification frames name the post too: only a `message` frame counts.
        for (let at = s.buffer.indexOf(marker); at >= 0; at = s.buffer.indexOf(marker, at + marker.length)) {
          const frame = s.buffer.slice(s.buffer.lastIndexOf('\n\n', at) + 1, at);
          if (/(^|\n)event: message\n/.test(frame)) {
            s.deliveredMs = performance.now() - t0;
            s.buffer = '';
            pending -= 1;
            if (pending === 0) allDone();
            return;
          }
        }
        // Keep only the unfinished frame (a marker may be split across chunks).
        const frameStart = s.buffer.lastIndexOf('\n\n');
        if (frameStart > 0) s.buffer = s.buffer.slice(frameStart);
      });
    }
    const posted = await fetch(`${options.url}/api/messages`, {
      method: 'POST',
      headers: { 'x-auth-token': poster.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ group: picked.groupId, data: { title: marker, text: 'Live event delivery check.' } }),
    });
    const postMs = performance.now() - t0;
    await posted.arrayBuffer();
    if (posted.status !== 201) badStatuses[`post ${posted.status}`] = 1;
    await Promise.race([everyone, sleep(options.timeoutMs)]);

    const delivered = receivers
      .map((s) => s.deliveredMs)
      .filter((v): v is number => v !== null)
      .sort((a, b) => a - b);
    const missed = receivers.length - delivered.length;
    const closedEarly = streams.filter((s) => s.res !== null && s.closedEarly).length;
    return {
      rps: openSeconds > 0 ? opened / openSeconds : null,
      p50_ms: quantile(delivered, 0.5),
      p95_ms: quantile(delivered, 0.95),
      p99_ms: quantile(delivered, 0.99),
      rss_mb: sampler.stop(),
      errors: failed + missed + (posted.status === 201 ? 0 : 1) + closedEarly,
      details: {
        streams_open: opened,
        streams_failed: failed,
        streams_closed_early: closedEarly,
        open_seconds: Math.round(openSeconds * 100) / 100,
        group: picked.groupId,
        receivers: receivers.length,
        delivered: delivered.length,
        all_delivered_ms: delivered.length === receivers.length ? (delivered.at(-1) ?? null) : null,
        post_answer_ms: Math.round(postMs * 10) / 10,
        ...(Object.keys(badStatuses).length > 0 ? { bad_statuses: badStatuses } : {}),
      },
    };
  } finally {
    sampler.stop();
    for (const s of streams) s.req.destroy();
  }
}
