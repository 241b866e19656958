// Server state through TanStack Query: one key per resource, one hook per read. Live events
// (features/live) update these caches instead of re-fetching on each navigation (docs/api §13).
import {
  type InfiniteData,
  infiniteQueryOptions,
  QueryClient,
  queryOptions,
  useInfiniteQuery,
  type InvalidateOptions,
  type InvalidateQueryFilters,
  type QueryKey,
  useQuery,
} from '@tanstack/react-query';
import { LIMITS, type EndpointAnswer, type FileObject, type Message } from '@kith/common';
import { ApiError, call } from '../lib/api';
import { offerEarlyAnswers, takeEarlyReads } from '../lib/earlyAnswers';
import { getApiKey } from '../lib/session';

export const keys = {
  me: ['me'] as const,
  info: ['info'] as const,
  group: (id: string) => ['group', id] as const,
  feed: (groupId: string) => ['feed', groupId] as const,
  feeds: ['feed'] as const,
  /** The all-groups feed: under `feed`, so what reloads every feed reloads it (no group id is 'all'). */
  allFeed: ['feed', 'all'] as const,
  message: (id: string) => ['message', id] as const,
  messages: ['message'] as const,
  notifications: ['notifications'] as const,
  link: (url: string) => ['link', url] as const,
  file: (id: string) => ['file', id] as const,
  bookmarks: ['bookmarks'] as const,
  /** The caller's data exports (settings, "Your data"). */
  exports: ['exports'] as const,
};

/** Whether a query key is one group's feed (`keys.feed(id)`), not the all-groups feed. */
function isGroupFeedKey(key: QueryKey | undefined): boolean {
  return key?.length === 2 && key[0] === 'feed' && key[1] !== keys.allFeed[1];
}

/**
 * The all-groups feed shows every group's cards, so whatever makes one group's feed stale (a post,
 * an edit, a deletion, leaving the group) makes it stale too: one rule here instead of a second
 * line beside every `invalidateQueries` of a group feed.
 */
class KithQueryClient extends QueryClient {
  override invalidateQueries<TTaggedQueryKey extends QueryKey = QueryKey>(
    filters?: InvalidateQueryFilters<TTaggedQueryKey>,
    options?: InvalidateOptions,
  ): Promise<void> {
    const own = super.invalidateQueries(filters, options);
    if (!isGroupFeedKey(filters?.queryKey)) return own;
    const all = super.invalidateQueries({ queryKey: keys.allFeed, refetchType: filters?.refetchType }, options);
    return Promise.all([own, all]).then(() => undefined);
  }
}

/** The app's query client: no retry on 4xx answers, which retrying cannot fix. */
export function createQueryClient(): QueryClient {
  return new KithQueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      },
    },
  });
}

/**
 * Puts the message a write answered into the cache. That answer is newer than any read of the
 * message still in flight (a live event or a reload may have asked for one just before the write):
 * such a read is cancelled first, else its older answer would land last and undo the write on screen.
 */
export function storeWrittenMessage(client: QueryClient, message: Message): void {
  // Cancelling is synchronous: the read's state is reverted now, before the answer is stored.
  void client.cancelQueries({ queryKey: keys.message(message.id), exact: true });
  client.setQueryData(keys.message(message.id), message);
}

const meQuery = queryOptions({
  queryKey: keys.me,
  queryFn: ({ signal }) => call('GET /api/me', { signal }),
  staleTime: 300_000,
});

/** The signed-in user; loaded once and reused (product spec §4). */
export function useMe(enabled = true) {
  return useQuery({ ...meQuery, enabled });
}

/** What this instance offers (upload kinds, invitation links). */
export function useInfo() {
  return useQuery({
    queryKey: keys.info,
    queryFn: ({ signal }) => call('GET /api/info', { signal }),
    staleTime: 600_000,
  });
}

export function useGroup(id: string | undefined) {
  return useQuery({
    queryKey: keys.group(id ?? ''),
    queryFn: ({ signal }) => call('GET /api/groups/{id}', { params: { id: id ?? '' }, signal }),
    enabled: id !== undefined,
  });
}

/** The batched feed (docs/api §11.1): pages of 30 cards, with a cursor that never skips or repeats. */
const feedQuery = (groupId: string) =>
  infiniteQueryOptions({
    queryKey: keys.feed(groupId),
    queryFn: ({ pageParam, signal }) =>
      call('GET /api/groups/{id}/feed', {
        params: { id: groupId },
        query: { limit: LIMITS.groupPageSize, ...(pageParam ? { cursor: pageParam } : {}) },
        signal,
      }),
    initialPageParam: null as string | null,
    getNextPageParam: (last: FeedPage) => last.nextCursor,
  });

export function useFeed(groupId: string) {
  return useInfiniteQuery(feedQuery(groupId));
}

/** The all-groups feed (docs/api §11.8): the same cards and cursor, each card naming its group. */
const allFeedQuery = infiniteQueryOptions({
  queryKey: keys.allFeed,
  queryFn: ({ pageParam, signal }) =>
    call('GET /api/feed', {
      query: { limit: LIMITS.groupPageSize, ...(pageParam ? { cursor: pageParam } : {}) },
      signal,
    }),
  initialPageParam: null as string | null,
  getNextPageParam: (last: FeedPage) => last.nextCursor,
});

export function useAllFeed() {
  return useInfiniteQuery(allFeedQuery);
}

/** A screen of the group's feed. */
export type FeedPage = EndpointAnswer<'GET /api/groups/{id}/feed'>;
export type FeedData = InfiniteData<FeedPage, string | null>;

export function useMessage(id: string | undefined) {
  return useQuery({
    queryKey: keys.message(id ?? ''),
    queryFn: ({ signal }) => call('GET /api/messages/{id}', { params: { id: id ?? '' }, signal }),
    enabled: id !== undefined,
  });
}

/** The notifications list: the spec shows 20 and asks for one more. */
const notificationsQuery = queryOptions({
  queryKey: keys.notifications,
  queryFn: ({ signal }) =>
    call('GET /api/me/notifications/{limit}', {
      params: { limit: String(LIMITS.notificationsShown + 1) },
      // Kith's client lists reaction notifications too, and mentions as such; the 0.5.6 client, which
      // cannot show them, does not ask (it gets mentions as new_message or new_comment).
      query: { include: 'reactions,mentions' },
      signal,
    }),
});

export function useNotifications(enabled = true) {
  return useQuery({ ...notificationsQuery, enabled });
}

/** A group page's first reads, started before its first render. */
export interface FirstScreenReads {
  /** Settles once the three reads are in the caches, failed ones included. */
  settled: Promise<void>;
  /** Whether the page's early script holds every answer already: `settled` is then a matter of moments. */
  inHand(): boolean;
}

/**
 * Starts the reads of a signed-in person's group page (`path` is the route path, without the base
 * path) before React renders it: the user, the feed's first page and the notifications then load
 * beside the texts and the screen's code instead of after them (benchmark: the first card painted
 * about 300 ms sooner). The page's early script (web/src/firstScreenReads.ts) may have sent these
 * very requests already, before the app's code was even loaded: their answers are taken over, each
 * once (lib/earlyAnswers.ts). Other screens fetch as they render: null for them. Failures are left
 * to the screen's own queries.
 */
export function prefetchFirstScreen(client: QueryClient, path: string): FirstScreenReads | null {
  const key = getApiKey();
  // Taken on every first screen, so that nothing the early script started is kept for later; only
  // a group page of the same key gets its answers.
  const early = takeEarlyReads(path, key);
  const group = /^\/groups\/([0-9a-f-]{36})\/?$/.exec(path)?.[1];
  if (group === undefined || key === null) return null;
  const reads: Promise<void>[] = [];
  // The queries call `call` at once (no data in the cache yet), which takes the early answers.
  offerEarlyAnswers(early?.answers ?? null, () => {
    reads.push(client.prefetchQuery(meQuery), client.prefetchInfiniteQuery(feedQuery(group)));
    reads.push(client.prefetchQuery(notificationsQuery));
  });
  return {
    settled: Promise.all(reads).then(() => undefined),
    inHand: () => early?.arrived() ?? false,
  };
}

export function useLinkPreview(url: string | null) {
  return useQuery({
    queryKey: keys.link(url ?? ''),
    queryFn: ({ signal }) => call('GET /api/links/by_url', { query: { url: url ?? '' }, signal }),
    enabled: url !== null,
    staleTime: 3_600_000,
  });
}

export function useFile(id: string, initial?: FileObject) {
  return useQuery({
    queryKey: keys.file(id),
    queryFn: ({ signal }) => call('GET /api/files/{id}', { params: { id }, signal }),
    initialData: initial,
    staleTime: 300_000,
  });
}

/**
 * The user's bookmarks with their cards inline (docs/api §9.1): the spec's limit of 1000, asked
 * as 1001. Never part of the first screen's reads: the menu prefetches it when the page is idle.
 */
const bookmarksQuery = queryOptions({
  queryKey: keys.bookmarks,
  queryFn: ({ signal }) =>
    call('GET /api/me/bookmarks/{limit}', {
      params: { limit: String(LIMITS.bookmarksDefault + 1) },
      query: { expand: 'message' },
      signal,
    }),
});

export function useBookmarks(enabled = true) {
  return useQuery({ ...bookmarksQuery, enabled });
}

/** Loads the bookmarks in the background (the avatar menu's entry depends on there being any). */
export function prefetchBookmarks(client: QueryClient): void {
  void client.prefetchQuery(bookmarksQuery);
}
