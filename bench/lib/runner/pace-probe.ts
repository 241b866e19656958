/**
 * The machine's pace (`pace.ts`), run as its own process: every 250 ms it does the same small piece
 * of server-like work (JSON of a 20 KB object, a Map, strings: about 0.7 ms, 0.3 % of a core) and
 * prints the CPU time it took in µs, one number per line. CPU time, not wall time: waiting for a core
 * does not count, a slower core does.
 */
const page = {
  messages: Array.from({ length: 40 }, (_, i) => ({
    id: `m${i}`,
    title: `title ${i} ${'x'.repeat(100)}`,
    data: { text: 'word '.repeat(60), tags: ['a', 'b', 'c'] },
    n: i * 1.5,
  })),
};

function work(): number {
  let n = 0;
  for (let round = 0; round < 12; round += 1) {
    const text = JSON.stringify(page);
    const back = JSON.parse(text) as typeof page;
    const seen = new Map<string, number>();
    for (const message of back.messages) seen.set(message.id + String(round), message.title.length);
    n += text.length + seen.size;
  }
  return n;
}

// Warm the JIT so the first samples measure the machine, not the compiler.
let sink = 0;
for (let i = 0; i < 50; i += 1) sink ^= work();
setInterval(() => {
  const before = process.cpuUsage();
  sink ^= work();
  const spent = process.cpuUsage(before);
  process.stdout.write(`${spent.user + spent.system}\n`);
}, 250);
process.on('SIGTERM', () => process.exit(sink === -1 ? 1 : 0));
