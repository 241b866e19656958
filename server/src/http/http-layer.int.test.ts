import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';

/** One raw answer read off a socket: status, lower-cased headers and body. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseAnswer(text: string): RawAnswer {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

/** Opens a raw TCP connection to the app. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
function readAll(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the answer still leaves the answer readable.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Sends raw bytes on a fresh connection and reads the answer the server closes it with. */
async function sendRaw(port: number, bytes: string | Buffer): Promise<RawAnswer> {
  const socket = await open(port);
  const answer = readAll(socket);
  socket.write(bytes);
  return parseAnswer(await answer);
}

function expectEnvelope(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['cache-control']).toBe('no-store');
  const body = JSON.parse(answer.body) as { code: string; message: string; error: string };
  expect(body.code).toBe(code);
  expect(body.message).not.toBe('');
  expect(body.error).toBe(body.message);
}

describe('errors of the HTTP layer, before routing (docs/api §1.5)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('answers 431 headers_too_large in the envelope to headers over Node’s limit', async () => {
    const answer = await sendRaw(port, `GET /api/info HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectEnvelope(answer, 431, 'headers_too_large');
  });

  it('answers 431 headers_too_large to a URL over Node’s limit', async () => {
    const answer = await sendRaw(port, `GET /api/info?q=${'b'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectEnvelope(answer, 431, 'headers_too_large');
  });

  it.each([
    ['bytes that are not HTTP', 'HELLO THERE\r\n\r\n'],
    ['a bad header line', 'GET /api/info HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n'],
    ['an invalid Content-Length', 'POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n{}'],
    [
      'a broken chunked body',
      'POST /api/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
  ])('answers 400 invalid_request in the envelope to %s', async (_label, raw) => {
    expectEnvelope(await sendRaw(port, raw), 400, 'invalid_request');
  });

  it('still answers a well-formed request on the same server', async () => {
    const socket = await open(port);
    const answer = readAll(socket);
    socket.write('GET /api/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const parsed = parseAnswer(await answer);
    expect(parsed.status).toBe(200);
  });
});

describe('requests while the server is closing (SIGTERM)', () => {
  it('closes the connection of an answer finished while closing, so no request follows on it', async () => {
    const t = await createTestApp();
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as AddressInfo).port;
      const socket = await open(port);
      const answers = readAll(socket);
      // A first request whose body is not complete keeps the connection busy, so closing the
      // server waits for it instead of dropping the connection as idle.
      const started = new Promise<void>((resolve) => t.app.server.once('request', () => resolve()));
      socket.write(
        'POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{',
      );
      await started;
      const closed = t.app.close();
      // The rest of the first body, then a second request pipelined behind it.
      socket.write('}GET /api/info HTTP/1.1\r\nHost: x\r\n\r\n');
      const text = await answers;
      await closed;
      const [first = '', ...more] = text.split(/(?=HTTP\/1\.1 )/);
      // The first is answered as usual, and tells the client (nginx) the connection ends there:
      // the pipelined one is not taken, and a client sends it again on a new connection.
      expect(parseAnswer(first).status).toBe(400);
      expect(parseAnswer(first).headers.connection).toBe('close');
      expect(more).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('answers 503 service_unavailable in the envelope to a request that arrives meanwhile, and closes', async () => {
    const t = await createTestApp();
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as AddressInfo).port;
      // Held open by a request in progress (a body still to come), so the server keeps running.
      const busy = await open(port);
      const busyAnswer = readAll(busy);
      const started = new Promise<void>((resolve) => t.app.server.once('request', () => resolve()));
      busy.write('POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{');
      await started;
      // A second connection whose request has begun but not ended when the server starts closing.
      const late = await open(port);
      const lateAnswer = readAll(late);
      late.write('GET /api/info HTTP/1.1\r\nHost: x\r\n');
      const closed = t.app.close();
      late.write('\r\n');
      const answer = parseAnswer(await lateAnswer);
      busy.write('}');
      await busyAnswer;
      await closed;
      expectEnvelope(answer, 503, 'service_unavailable');
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.headers.connection).toBe('close');
    } finally {
      await t.close();
    }
  });
});
