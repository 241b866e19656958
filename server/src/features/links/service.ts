import type { LinkPreview, LinkPreviewData } from '@kith/common';
import type { AppContext } from '../../context.js';
import type { Effects, Tx } from '../../db/transaction.js';
import { PermanentJobError, type JobQueue } from '../../jobs/job-queue.js';
import { toSeconds } from '../../lib/clock.js';
import { ApiError, featureDisabled } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { Throttle } from '../../lib/throttles.js';
import { embedCode } from './embeds.js';
import {
  checkUrlShape,
  linkFetchLimits,
  RefusedUrlError,
  RemoteFetchError,
  safeFetch,
  type FetchOptions,
} from './fetcher.js';
import { pageReader } from './page-reader.js';
import { parseOEmbed, type OEmbedInfo } from './parse.js';
import { storePreviewImage } from './preview-image.js';
import { findLink, findLinkFreshness, upsertLink, type LinkRow } from './queries.js';
import { firstUrlInText } from '../../lib/urls.js';

/**
 * GET /api/links/by_url (docs/api §7.5): one stored preview per URL, shared by every user. The first
 * request fetches the page (under the fetch rules of `fetcher.ts`); later ones are served from the
 * `links` table until the preview is 7 days old, or 1 hour old when the last fetch failed. Only
 * fetches count against the caller's throttles (all fetches, and fetches of one host); cache hits
 * are free.
 */

const HOUR = 60 * 60 * 1000;
/** A stored preview is refreshed on the next request after this long… */
export const LINK_FRESH_MS = 7 * 24 * HOUR;
/** …or after this long when the last fetch failed. */
export const LINK_FAILED_FRESH_MS = HOUR;
export const MAX_LINK_URL_LENGTH = 2048;

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const JSON_TYPES = new Set(['application/json', 'application/json+oembed', 'text/json', 'text/javascript']);

const invalidUrl = (): ApiError =>
  new ApiError(400, 'invalid_url', 'This address cannot be previewed. Only public http(s) links are', 'url');

/** Fetches that are under way, per app, so concurrent first requests for one URL share one fetch. */
const inFlight = new WeakMap<AppContext, Map<string, Promise<LinkRow>>>();

function present(row: LinkRow): LinkPreview {
  return {
    id: row.id,
    entityType: 'link',
    url: row.url,
    updatedAt: toSeconds(row.updated_at),
    data: JSON.parse(row.data) as LinkPreviewData,
    // The stored preview image as a nested file, else "", which the 0.5.6 client needs instead of
    // null (docs/api §1.4, §2.9).
    preview: row.preview_file_id === null ? '' : { id: row.preview_file_id, entityType: 'file' },
  };
}

/** The `url` query value, checked: a string of at most 2048 characters, http(s), no credentials, allowed port. */
function readUrl(ctx: AppContext, raw: unknown): string {
  if (typeof raw !== 'string') throw invalidUrl();
  const url = raw.trim();
  if (url === '' || url.length > MAX_LINK_URL_LENGTH) throw invalidUrl();
  try {
    checkUrlShape(url, { allowLoopback: ctx.config.linkPreviewAllowLoopback });
  } catch {
    throw invalidUrl();
  }
  return url;
}

/** The host a URL (already checked by `readUrl`) is fetched from, as the per-host throttle counts it. */
function hostOf(url: string): string {
  return new URL(url).hostname.replace(/\.$/, '');
}

function isStale(row: Pick<LinkRow, 'updated_at' | 'failed'>, now: number): boolean {
  return now - row.updated_at >= (row.failed === 1 ? LINK_FAILED_FRESH_MS : LINK_FRESH_MS);
}

/**
 * The preview of `raw` for a caller: the signed-in user's id, or `public:<messageId>` for a visitor
 * holding a public-link grant (docs/api §1.9). Only new fetches count against that key's throttle.
 */
export async function getLinkPreview(ctx: AppContext, throttleKey: string, raw: unknown): Promise<LinkPreview> {
  if (!ctx.config.linkPreviews) throw featureDisabled('Link previews are turned off on this instance');
  const url = readUrl(ctx, raw);
  const row = await findLink(ctx.db.kysely, url);
  if (row !== undefined && !isStale(row, ctx.clock.now())) return present(row);

  let pending = inFlight.get(ctx)?.get(url);
  if (pending === undefined) {
    const throttles = [
      new Throttle(ctx.limiter, 'linkPreviewsPerUser', throttleKey),
      // Another query string is another URL, so another fetch: counted per host as well, or one
      // member could make the instance fetch (and parse) the same site's pages without end.
      new Throttle(ctx.limiter, 'linkPreviewHostsPerUser', `${throttleKey}|${hostOf(url)}`),
    ];
    try {
      for (const throttle of throttles) await throttle.check();
    } catch (error) {
      // Over a limit: a stale preview is still better than none, and costs no fetch.
      if (row !== undefined) return present(row);
      throw error;
    }
    // The checks awaited the throttle store: another request may have started this fetch meanwhile.
    pending = inFlight.get(ctx)?.get(url);
    if (pending === undefined) {
      pending = startRefresh(ctx, url, row);
      // Should counting fail (a shared store that stopped answering), the fetch still ends on its own.
      pending.catch(() => undefined);
      for (const throttle of throttles) await throttle.hit();
    }
  }
  return present(await pending);
}

function startRefresh(ctx: AppContext, url: string, row: LinkRow | undefined): Promise<LinkRow> {
  const running = inFlight.get(ctx) ?? new Map<string, Promise<LinkRow>>();
  inFlight.set(ctx, running);
  const pending = refresh(ctx, url, row).finally(() => running.delete(url));
  running.set(url, pending);
  return pending;
}

/**
 * The card picture of a message without files comes from the preview of the first URL of its text
 * (docs/api §6.1, §10.6). This queues the fetch as a `link-preview` job in the message's own
 * transaction: no request waits for it, no caller's throttle counts it, and a crash right after the
 * commit still gets it fetched at the next start. Nothing is queued when the stored preview is
 * fresh, when the URL breaks the fetch rules, or when previews are turned off.
 */
export async function queueLinkPreview(ctx: AppContext, tx: Tx, effects: Effects, text: string | null): Promise<void> {
  if (!ctx.config.linkPreviews) return;
  const raw = firstUrlInText(text);
  if (raw === null) return;
  let url: string;
  try {
    url = readUrl(ctx, raw);
  } catch {
    return;
  }
  const row = await findLinkFreshness(tx, url);
  if (row !== undefined && !isStale(row, ctx.clock.now())) return;
  await effects.enqueue('link-preview', { url });
}

/**
 * The `link-preview` job: fetches and stores the preview of a URL queued by `queueLinkPreview`,
 * unless it became fresh meanwhile (a `by_url` request, another job). A fetch that fails is stored
 * as today (the last good preview kept) and the job is retried with the queue's backoff; a retry
 * fetches again even though that failure is recent. A URL the fetch rules refuse is not retried.
 */
export function registerLinkPreviewHandler(ctx: AppContext, queue: JobQueue): void {
  queue.register('link-preview', {
    async run({ url }, job) {
      if (!ctx.config.linkPreviews) return;
      const row = await findLink(ctx.db.kysely, url);
      const retrying = job.attempt > 1 && row?.failed === 1;
      if (row !== undefined && !isStale(row, ctx.clock.now()) && !retrying) return;
      let stored: LinkRow;
      try {
        // A fetch of the same URL under way (a `by_url` request) is shared, not repeated.
        stored = await (inFlight.get(ctx)?.get(url) ?? startRefresh(ctx, url, row));
      } catch (error) {
        if (error instanceof ApiError) throw new PermanentJobError(error.message);
        throw error;
      }
      if (stored.failed === 1) {
        const { exception } = JSON.parse(stored.data) as { exception?: unknown };
        throw new Error(`The link preview failed: ${typeof exception === 'string' ? exception : 'fetch failed'}`);
      }
    },
  });
}

/** Resolves once no link preview job is due and no fetch of this app is running (tests, shutdown). */
export async function linkPreviewsSettled(ctx: AppContext): Promise<void> {
  for (;;) {
    await ctx.jobs.drain(['link-preview']);
    const running = [...(inFlight.get(ctx)?.values() ?? [])];
    if (running.length === 0) return;
    await Promise.allSettled(running);
  }
}

/** Fetches the URL and stores the result (insert … on conflict, so parallel processes meet in one row). */
async function refresh(ctx: AppContext, url: string, previous: LinkRow | undefined): Promise<LinkRow> {
  let data: LinkPreviewData;
  let failed = 0;
  let previewFileId: string | null;
  try {
    data = await buildPreview(url, ctx.config.linkPreviewAllowLoopback);
    previewFileId = await previewImageFor(ctx, data, previous);
  } catch (error) {
    if (error instanceof RefusedUrlError) throw invalidUrl();
    if (!(error instanceof RemoteFetchError)) ctx.log.warn({ err: error }, 'link preview failed unexpectedly');
    failed = 1;
    const reason = error instanceof RemoteFetchError ? error.message : 'fetch failed';
    // A refresh that fails keeps the last good preview; it is tried again an hour later.
    const keep = previous !== undefined && previous.failed === 0;
    data = keep ? (JSON.parse(previous.data) as LinkPreviewData) : { origin: url, exception: reason };
    previewFileId = keep ? previous.preview_file_id : null;
  }
  return storeLink(ctx, url, data, failed, previewFileId);
}

/**
 * The stored preview image for fresh page data: the previous one when the page still names the
 * same image, else the image fetched and stored anew; null when there is none or it failed. An
 * image that is replaced is no longer a link preview and goes with the unattached-file clean-up.
 */
async function previewImageFor(
  ctx: AppContext,
  data: LinkPreviewData,
  previous: LinkRow | undefined,
): Promise<string | null> {
  if (data.image === undefined || data.image === '') return null;
  const kept = previous?.preview_file_id ?? null;
  if (previous !== undefined && kept !== null) {
    const before = JSON.parse(previous.data) as LinkPreviewData;
    if (before.image === data.image) return kept;
  }
  return storePreviewImage(ctx, data.image);
}

/**
 * Writes the result of a fetch: insert … on conflict (url) do update, so two processes fetching the
 * same new URL at once both succeed and meet in one row.
 */
export async function storeLink(
  ctx: AppContext,
  url: string,
  data: LinkPreviewData,
  failed: number,
  previewFileId: string | null = null,
): Promise<LinkRow> {
  return upsertLink(ctx.db.kysely, {
    id: newId(),
    url,
    data: JSON.stringify(data),
    previewFileId,
    failed,
    now: ctx.clock.now(),
  });
}

/** Fetches and reads one URL within the overall deadline (10 s), parsing included. */
export async function buildPreview(url: string, allowLoopback: boolean): Promise<LinkPreviewData> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new RemoteFetchError('timeout')), linkFetchLimits.totalTimeoutMs);
  const base: Omit<FetchOptions, 'bodyLimit'> = { allowLoopback, signal: controller.signal };
  try {
    const page = await safeFetch(url, {
      ...base,
      // Only HTML is read and parsed; a direct image, video or audio URL is a card with its type.
      bodyLimit: (type) => (HTML_TYPES.has(type) ? linkFetchLimits.maxHtmlBytes : 0),
    });
    const finalUrl = page.url.href;
    const data: LinkPreviewData = { origin: url, 'content-type': page.contentTypes, url: finalUrl };
    const providerName = page.url.hostname.replace(/^www\./, '');
    if (page.body === null) {
      return { ...data, providerName, code: embedCode([url, finalUrl]) };
    }
    // In the worker thread: however the page is built, the requests of everyone else go on.
    const meta = await pageReader.read(page.body, page.contentTypes[0], page.url, controller.signal);
    let oembed: OEmbedInfo | null = null;
    // oEmbed only fills what the page itself did not say; any problem with it is ignored.
    if (meta.oembed !== null && (meta.title === null || meta.siteName === null)) {
      try {
        const answer = await safeFetch(meta.oembed, {
          ...base,
          bodyLimit: (type) => (JSON_TYPES.has(type) ? linkFetchLimits.maxJsonBytes : 0),
        });
        if (answer.body !== null) oembed = parseOEmbed(answer.body, answer.url);
      } catch {
        oembed = null;
      }
    }
    const title = meta.title ?? oembed?.title ?? null;
    const image = meta.image ?? oembed?.thumbnail ?? null;
    return {
      ...data,
      ...(title !== null ? { title } : {}),
      ...(meta.description !== null ? { description: meta.description } : {}),
      url: meta.canonical ?? finalUrl,
      providerName: meta.siteName ?? oembed?.providerName ?? providerName,
      ...(image !== null ? { image } : {}),
      code: embedCode([url, finalUrl, ...(meta.canonical !== null ? [meta.canonical] : [])], meta.players),
    };
  } finally {
    clearTimeout(timer);
  }
}
