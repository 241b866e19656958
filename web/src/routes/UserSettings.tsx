import { type JSX, type KeyboardEvent, useEffect, useRef } from 'react';
import { Link, Navigate, useLocation, useParams, useSearchParams } from 'react-router';
import type { Me } from '@kith/common';
import { useMe } from '../api/queries';
import { Dropdown } from '../components/Dropdown';
import { Spinner } from '../components/Spinner';
import { DataPanel } from '../features/exports/DataPanel';
import { AccountPanel } from '../features/settings/AccountPanel';
import {
  AppearancePanel,
  DefaultGroupPanel,
  LanguagePanel,
  NotificationsPanel,
} from '../features/settings/ChoicePanels';
import { ProfilePanel } from '../features/settings/ProfilePanel';
import { neighbourTab, SETTINGS_TABS, type SettingsTab, tabOf } from '../features/settings/settings';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';
import styles from './UserSettings.module.css';

const LABELS: Record<SettingsTab, string> = {
  profile: 'settings.tab_profile',
  notifications: 'settings.tab_notifications',
  language: 'settings.tab_language',
  appearance: 'settings.tab_appearance',
  'default-group': 'settings.tab_default_group',
  account: 'settings.tab_account',
  data: 'settings.tab_data',
};

const PANELS: Record<SettingsTab, (props: { me: Me }) => JSX.Element> = {
  profile: ProfilePanel,
  notifications: NotificationsPanel,
  language: LanguagePanel,
  appearance: AppearancePanel,
  'default-group': DefaultGroupPanel,
  account: AccountPanel,
  data: DataPanel,
};

/**
 * /users/{id}/settings: the account settings, one tab at a time, with the chosen tab in the URL
 * (`?tab=`), and a menu of the user's groups leading to each group's settings (product spec §2).
 * Another user's id leads to one's own settings: nobody can change someone else's account.
 */
export default function UserSettings() {
  const { t, i18n } = useTranslation();
  const { id } = useParams();
  const location = useLocation();
  const me = useMe();
  const [params, setParams] = useSearchParams();
  const tab = tabOf(params.get('tab'));
  const tabs = useRef<Partial<Record<SettingsTab, HTMLButtonElement | null>>>({});

  // On a phone the tabs are one scrolling row: the chosen one is brought into sight, also when the
  // address names a tab at the far end, and again when the account's language replaces the first
  // screen's (longer labels push the last tabs out of sight).
  const language = i18n.language;
  useEffect(() => {
    tabs.current[tab]?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [tab, language]);

  // AppLayout renders this screen only once the user is loaded.
  if (me.data === undefined) return <Spinner />;
  if (id !== me.data.id) return <Navigate to={`/users/${me.data.id}/settings${location.search}`} replace />;

  // Replacing the history entry: the back button leaves the settings rather than stepping through tabs.
  const select = (next: SettingsTab) => setParams({ tab: next }, { replace: true });

  // The tab list's keys (WAI-ARIA tabs pattern): arrows move and select, Home and End jump.
  const onKeyDown = (event: KeyboardEvent) => {
    const next =
      event.key === 'ArrowRight' || event.key === 'ArrowDown'
        ? neighbourTab(tab, 1)
        : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
          ? neighbourTab(tab, -1)
          : event.key === 'Home'
            ? SETTINGS_TABS[0]
            : event.key === 'End'
              ? SETTINGS_TABS[SETTINGS_TABS.length - 1]
              : null;
    if (next === null || next === undefined) return;
    event.preventDefault();
    select(next);
    tabs.current[next]?.focus();
  };

  const Panel = PANELS[tab];
  return (
    <div className={styles.page}>
      <div className={styles.header}>
        <h1 className={styles.title}>{t('settings.title')}</h1>
        {me.data.groups.length > 0 && (
          <Dropdown
            align="right"
            buttonClassName={`${ui.buttonSecondary} ${styles.groupsButton}`}
            label={
              <>
                {t('settings.my_groups')} <span aria-hidden="true">▾</span>
              </>
            }
          >
            {(close) => (
              <nav aria-label={t('settings.my_groups')}>
                {me.data.groups.map((group) => (
                  <Link key={group.id} to={`/groups/${group.id}/settings`} onClick={close}>
                    {group.name}
                  </Link>
                ))}
              </nav>
            )}
          </Dropdown>
        )}
      </div>
      <div className={styles.layout}>
        <div role="tablist" aria-label={t('settings.tabs')} className={styles.tabs} onKeyDown={onKeyDown}>
          {SETTINGS_TABS.map((name) => (
            <button
              key={name}
              ref={(element) => {
                tabs.current[name] = element;
              }}
              type="button"
              role="tab"
              id={`settings-tab-${name}`}
              aria-selected={name === tab}
              // Only the shown panel exists, so only its tab names it.
              aria-controls={name === tab ? `settings-panel-${name}` : undefined}
              tabIndex={name === tab ? 0 : -1}
              className={styles.tab}
              onClick={() => select(name)}
            >
              {t(LABELS[name])}
            </button>
          ))}
        </div>
        <div
          role="tabpanel"
          id={`settings-panel-${tab}`}
          aria-labelledby={`settings-tab-${tab}`}
          className={`${ui.card} ${styles.panel}`}
        >
          {/* Keyed by tab and account: a form starts from the saved values each time it is shown. */}
          <Panel key={tab} me={me.data} />
        </div>
      </div>
    </div>
  );
}
