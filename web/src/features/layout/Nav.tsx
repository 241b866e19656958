import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { prefetchBookmarks, useBookmarks, useMessage } from '../../api/queries';
import type { Me } from '@kith/common';
import { Avatar } from '../../components/Avatar';
import { Dropdown } from '../../components/Dropdown';
import dropdown from '../../components/Dropdown.module.css';
import { useTranslation } from '../../lib/i18n';
import { whenIdleAndSettled } from '../../lib/whenSettled';
import { NotificationsMenu } from '../notifications/NotificationsMenu';
import { SearchBox } from '../search/SearchBox';
import styles from './Nav.module.css';
import { useRouteState } from './useRouteState';

/** The group the screen is about: the feed's, or the open message's. */
function useCurrentGroupId(): string | null {
  const { route, id } = useRouteState();
  // Same cache entry as the message screen: no second request.
  const message = useMessage(route === 'messages' && id !== null ? id : undefined);
  if (route === 'groups' && id !== null) return id;
  return message.data?.group?.id ?? null;
}

/** The avatar menu's Bookmarks entry, shown only when the user has some (product spec §2). */
function BookmarksLink({ close }: { close: () => void }) {
  const { t } = useTranslation();
  const { data } = useBookmarks();
  if (data === undefined || data.length === 0) return null;
  return (
    <Link className={dropdown.item} to="/bookmarks" onClick={close}>
      {t('bookmarks.title')}
    </Link>
  );
}

/**
 * The bookmarks are read once the page is idle and the first screen's reads are over, never among
 * them, so the avatar menu knows whether to show its Bookmarks entry by the time it is opened.
 */
function usePrefetchBookmarksWhenIdle() {
  const client = useQueryClient();
  useEffect(() => whenIdleAndSettled(client, () => prefetchBookmarks(client)), [client]);
}

/** The main navigation: groups, notifications and the avatar menu (product spec §2). */
export function Nav({ me }: { me: Me }) {
  const { t } = useTranslation();
  const currentId = useCurrentGroupId();
  const current = me.groups.find((group) => group.id === currentId);
  const allGroups = useRouteState().route === 'feed';
  usePrefetchBookmarksWhenIdle();

  return (
    <header className={styles.nav}>
      <div className={styles.inner}>
        <Dropdown
          buttonClassName={styles.groups}
          label={
            <>
              <span className={styles.groupName}>
                {current?.name ?? (allGroups ? t('all_feed.title') : t('nav.groups'))}
              </span>
              <span aria-hidden="true">▾</span>
            </>
          }
        >
          {(close) => (
            <nav aria-label={t('nav.groups')}>
              {me.groups.length > 0 && (
                <Link to="/feed" onClick={close} aria-current={allGroups ? 'page' : undefined}>
                  {t('all_feed.title')}
                </Link>
              )}
              {me.groups.map((group) => (
                <Link
                  key={group.id}
                  to={`/groups/${group.id}`}
                  onClick={close}
                  aria-current={group.id === currentId ? 'page' : undefined}
                >
                  {group.name}
                </Link>
              ))}
              <Link to="/create-group" onClick={close} className={styles.create}>
                {t('nav.create_group')}
              </Link>
            </nav>
          )}
        </Dropdown>
        <Link to="/" className={styles.brand}>
          Kith
        </Link>
        <div className={styles.right}>
          {currentId !== null && <SearchBox groupId={currentId} />}
          <NotificationsMenu />
          <Dropdown
            align="right"
            ariaLabel={t('nav.account_menu')}
            buttonClassName={styles.avatarButton}
            label={<Avatar user={me} px={34} />}
          >
            {(close) => (
              <>
                <p className={styles.who}>
                  <strong>{me.name}</strong>
                  <br />
                  <span>{me.login}</span>
                </p>
                <BookmarksLink close={close} />
                <Link className={dropdown.item} to={`/users/${me.id}/settings`} onClick={close}>
                  {t('nav.settings')}
                </Link>
                <Link className={dropdown.item} to="/logout" onClick={close}>
                  {t('nav.logout')}
                </Link>
              </>
            )}
          </Dropdown>
        </div>
      </div>
    </header>
  );
}
