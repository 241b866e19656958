import { useInfiniteQuery } from '@tanstack/react-query';
import { call } from '../../lib/api';
import type { SearchQuery } from './query';

/**
 * The search of a group (docs/api §6.8). Asked again each time the page opens: results change with
 * every message (the server never caches them either), and the words travel joined by "+". Each
 * page is one window of the group's messages, newest first: the server reads the newest ones, and
 * an answer's `older` asks for the ones before them (fetchNextPage).
 */
export function useSearch(groupId: string, query: SearchQuery) {
  const search = query.words.join('+');
  const hashtags = query.hashtags.join('+');
  const enabled = search !== '' || hashtags !== '';
  const result = useInfiniteQuery({
    queryKey: ['search', groupId, search, hashtags],
    queryFn: ({ signal, pageParam }) =>
      call('POST /api/messages/search', { body: { group: groupId, search, hashtags, before: pageParam }, signal }),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.older,
    enabled,
    staleTime: 0,
    gcTime: 60_000,
  });
  return { ...result, enabled };
}
