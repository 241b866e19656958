// Web metrics of issue 7 (item 4), measured in Debian's chromium on the seeded data: what the first
// screen downloads, how many API calls the big group's feed needs, and when its first card paints.
import { gzipSync } from 'node:zlib';
// The browser suite's launcher: the same Debian chromium with the same flags.
import { launchBrowser } from '../../e2e/harness.ts';

export interface WebMetrics {
  /** JS and CSS of the first screen, gzipped, in KB (1000 bytes). */
  first_screen_gz_kb: number;
  /** API calls made before the first card is painted (the live event stream and images excluded). */
  feed_api_calls: number;
  /** Bytes of those API answers. */
  feed_api_bytes: number;
  /** Time from navigation start to the first feed card painted, in ms (median of the runs). */
  feed_paint_ms: number;
  /** Each load's time, in the order they ran (the first is the browser's first page). */
  feed_paint_each_ms: number[];
}

// Installed before any page script: notes when the first feed card is added, then when the frame
// that shows it is painted (two animation frames later).
const PAINT_PROBE = `
  window.__kithFirstCard = null;
  new MutationObserver((records, observer) => {
    if (document.querySelector('main article')) {
      observer.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => { window.__kithFirstCard = performance.now(); }));
    }
  }).observe(document, { childList: true, subtree: true });
`;

/** An API call the first screen makes: the live event stream and images are not. */
function isFeedApiCall(address: string): boolean {
  const { pathname } = new URL(address);
  return pathname.includes('/api/') && !pathname.includes('/api/events') && !pathname.includes('/api/images/');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Opens the big group's feed as one of its members and measures it (cold cache each run). */
export async function measureWeb(options: {
  url: string;
  groupId: string;
  apiKey: string;
  runs?: number;
}): Promise<WebMetrics> {
  const browser = await launchBrowser();
  try {
    const paints: number[] = [];
    let firstScreenBytes = 0;
    let apiCalls = 0;
    let apiBytes = 0;
    const runs = options.runs ?? 5;
    for (let run = 0; run < runs; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      // Signed in the way the client keeps it: the key in a wrapped local storage entry.
      const entry = JSON.stringify({ data: options.apiKey, createdAt: Date.now(), metadata: {} });
      await context.addInitScript(`localStorage.setItem('apiKey', ${JSON.stringify(entry)});`);
      await context.addInitScript(PAINT_PROBE);
      const page = await context.newPage();
      const assets: Promise<number>[] = [];
      // The API calls under way, to wait for before reading which of them started before the paint.
      const api: Promise<unknown>[] = [];
      let painted = false;
      // Only the first load keeps sizes: reading a body asks the browser for a copy of it over the
      // DevTools protocol, work that would otherwise land in the later loads' timed minutes.
      if (run === 0) {
        page.on('response', (response) => {
          if (painted) return;
          const type = response.request().resourceType();
          if (type === 'script' || type === 'stylesheet') {
            assets.push(
              response.body().then(
                (body) => gzipSync(body, { level: 9 }).length,
                () => 0,
              ),
            );
          }
        });
        page.on('request', (request) => {
          if (!painted && isFeedApiCall(request.url()))
            api.push(
              request
                .response()
                .then((response) => response?.finished())
                .catch(() => null),
            );
        });
      }
      await page.goto(`${options.url}/groups/${options.groupId}`);
      await page.waitForFunction(
        () => (globalThis as unknown as { __kithFirstCard: number | null }).__kithFirstCard !== null,
        null,
        {
          timeout: 30_000,
        },
      );
      painted = true;
      paints.push(await page.evaluate(() => (globalThis as unknown as { __kithFirstCard: number }).__kithFirstCard));
      if (run === 0) {
        firstScreenBytes = (await Promise.all(assets)).reduce((a, b) => a + b, 0);
        // The page's own clock decides which calls count: the poll above notices the paint a little
        // after it happened, and a call that starts in between (the bookmarks' list, sent once the
        // feed shows) is not one the first card waited for. Once every call noticed by then has
        // ended, its resource timing entry is there to read.
        await Promise.all(api);
        const calls = await page.evaluate(() => {
          const paint = (globalThis as unknown as { __kithFirstCard: number }).__kithFirstCard;
          return performance
            .getEntriesByType('resource')
            .filter((entry) => entry.startTime < paint)
            .map((entry) => ({
              url: entry.name,
              bytes: (entry as unknown as { decodedBodySize: number }).decodedBodySize,
            }));
        });
        const counted = calls.filter((call) => isFeedApiCall(call.url));
        apiCalls = counted.length;
        apiBytes = counted.reduce((sum, call) => sum + call.bytes, 0);
      }
      await context.close();
    }
    return {
      first_screen_gz_kb: Math.round(firstScreenBytes / 100) / 10,
      feed_api_calls: apiCalls,
      feed_api_bytes: apiBytes,
      feed_paint_ms: Math.round(median(paints)),
      feed_paint_each_ms: paints.map((ms) => Math.round(ms)),
    };
  } finally {
    await browser.close();
  }
}
