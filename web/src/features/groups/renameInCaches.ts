import type { QueryClient } from '@tanstack/react-query';
import type { Group, Me, Message } from '@kith/common';
import { type FeedData, keys } from '../../api/queries';

/**
 * Puts a group's new name everywhere it is cached (the user's group list, the group, its feed's
 * cards and open messages), so the navigation and the screens show it at once after a rename made
 * here. Another member's rename (group_name_change, live) re-reads them instead: that code is in
 * the first screen, this is not.
 */
export function renameGroupInCaches(client: QueryClient, groupId: string, name: string): void {
  const rename = <T extends { id: string; name: string }>(group: T): T =>
    group.id === groupId ? { ...group, name } : group;
  client.setQueryData<Me>(keys.me, (me) => me && { ...me, groups: me.groups.map(rename) });
  client.setQueryData<Group>(keys.group(groupId), (group) => group && { ...group, name });
  client.setQueryData<FeedData>(
    keys.feed(groupId),
    (feed) =>
      feed && {
        ...feed,
        pages: feed.pages.map((page) => ({
          ...page,
          messages: page.messages.map((card) => ({ ...card, group: rename(card.group) })),
        })),
      },
  );
  client.setQueriesData<Message>({ queryKey: keys.messages }, (message) =>
    message?.group ? { ...message, group: rename(message.group) } : message,
  );
}
