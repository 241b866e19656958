/**
 * The node:http baseline (issue 7, item 3), run as its own process so it never shares an event loop
 * with the load generator: `node baseline-server.ts <bytes>` answers every request with the same JSON
 * body of exactly `<bytes>` bytes and prints `{"port": N}` once it listens on 127.0.0.1.
 */
import { createServer } from 'node:http';

const size = Number(process.argv[2] ?? '0');
if (!Number.isInteger(size) || size < 16) {
  process.stderr.write('usage: baseline-server.ts <bytes ≥ 16>\n');
  process.exit(2);
}

// A JSON object padded to the size of the real answer.
const head = '{"messages":[],"pad":"';
const tail = '"}';
const body = Buffer.from(`${head}${'x'.repeat(Math.max(0, size - head.length - tail.length))}${tail}`);

const server = createServer((request, response) => {
  request.resume();
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': body.length,
    'cache-control': 'no-store',
  });
  response.end(body);
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
