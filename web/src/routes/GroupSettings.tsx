import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { LIMITS, type Group, type Me } from '@kith/common';
import { keys, useGroup, useInfo, useMe } from '../api/queries';
import { Avatar } from '../components/Avatar';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { InvitePanel } from '../features/groups/InvitePanel';
import { renameGroupInCaches } from '../features/groups/renameInCaches';
import { useSubmit } from '../hooks/useSubmit';
import { call } from '../lib/api';
import { useTranslation } from '../lib/i18n';
import { showAlert } from '../lib/notify';
import ui from '../styles/ui.module.css';
import styles from './GroupSettings.module.css';

/** The rename form: 1–128 characters once trimmed, no < or > (product spec §5, docs/api §1.7). */
function RenameForm({ group, labelId }: { group: Group; labelId: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const errorId = useId();
  // null: show the group's current name (which may change live while nothing is typed).
  const [draft, setDraft] = useState<string | null>(null);
  const [invalid, setInvalid] = useState(false);
  const { pending, run } = useSubmit();
  const value = draft ?? group.name;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const name = value.trim();
    const ok = name.length >= LIMITS.nameMin && name.length <= LIMITS.name && !/[<>]/.test(name);
    setInvalid(!ok);
    if (!ok) return;
    void run(async () => {
      const renamed = await call('PUT /api/groups/{id}', { params: { id: group.id }, body: { name } });
      client.setQueryData(keys.group(group.id), renamed);
      renameGroupInCaches(client, group.id, renamed.name);
      setDraft(null);
      showAlert('group_settings.renamed');
    });
  };

  return (
    <form className={ui.form} onSubmit={submit} noValidate>
      <div className={ui.row}>
        <input
          aria-labelledby={labelId}
          className={`${ui.input} ${styles.grow}`}
          name="name"
          required
          maxLength={LIMITS.name}
          value={value}
          aria-invalid={invalid}
          aria-describedby={invalid ? errorId : undefined}
          onChange={(event) => {
            setDraft(event.target.value);
            setInvalid(false);
          }}
        />
        <button className={ui.button} type="submit" disabled={pending || value.trim() === group.name}>
          {t('group_settings.rename')}
        </button>
      </div>
      {invalid && (
        <p id={errorId} className={`${ui.error} ${styles.fieldError}`} role="alert">
          {t('errors.invalid_name')}
        </p>
      )}
    </form>
  );
}

/** Leaving, after a confirmation that says what happens to a group left empty (docs/api §10.5). */
function LeaveSection({ group, me }: { group: Group; me: Me }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const navigate = useNavigate();
  // The page is left after a success, so the button stays locked.
  const { pending, run } = useSubmit({ lockAfterSuccess: true });
  const isLast = group.users.every((user) => user.id === me.id);

  const leave = () => {
    const question = isLast ? 'group_settings.leave_confirm_last' : 'group_settings.leave_confirm';
    if (!window.confirm(t(question, { name: group.name }))) return;
    void run(async () => {
      const next = me.groups.find((other) => other.id !== group.id);
      try {
        // Product spec §4: the default group is first switched to the user's first other group.
        if (me.data.default_group === group.id && next !== undefined) {
          await call('PUT /api/users/{id}', { params: { id: me.id }, body: { data: { default_group: next.id } } });
        }
        await call('POST /api/groups/{id}/leave', { params: { id: group.id } });
      } catch {
        // The spec's wording for a failed leave is the generic one, whatever the server said.
        throw new Error('leave failed');
      }
      client.setQueryData<Me>(
        keys.me,
        (cached) =>
          cached && {
            ...cached,
            groups: cached.groups.filter((other) => other.id !== group.id),
            data: {
              ...cached.data,
              ...(next && cached.data.default_group === group.id ? { default_group: next.id } : {}),
            },
          },
      );
      // Marked stale without a new request: this page still shows the group until it is left, and
      // reading the group now would be refused (404).
      void client.invalidateQueries({ queryKey: keys.group(group.id), refetchType: 'none' });
      void client.invalidateQueries({ queryKey: keys.feed(group.id), refetchType: 'none' });
      void client.invalidateQueries({ queryKey: keys.me });
      showAlert('group_settings.left');
      void navigate('/');
    });
  };

  return (
    <button type="button" className={ui.buttonDanger} onClick={leave} disabled={pending}>
      {t('group_settings.leave')}
    </button>
  );
}

/** /groups/{id}/settings: rename, invitation link, members and leave, for any member (spec §2, §6). */
export default function GroupSettings() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const { data: me } = useMe();
  const group = useGroup(id);
  const info = useInfo();

  if (group.isError) return <LoadError error={group.error} onRetry={() => void group.refetch()} />;
  if (group.data === undefined || me === undefined) return <Spinner />;
  const showInvitation = info.data?.show.group_invitation_links === true;

  return (
    <div className={ui.page}>
      <p className={styles.back}>
        <Link to={`/groups/${id}`}>← {t('feed.back_to_group')}</Link>
      </p>
      <h1 className={ui.title}>{t('group_settings.title')}</h1>
      <section className={`${ui.card} ${styles.section}`} aria-labelledby="group-name">
        <h2 id="group-name" className={styles.heading}>
          {t('create_group.name')}
        </h2>
        <RenameForm group={group.data} labelId="group-name" />
      </section>
      {showInvitation && (
        <section className={styles.section} aria-labelledby="group-invitation">
          <h2 id="group-invitation" className={`${styles.heading} ${styles.outside}`}>
            {t('group.invite_link')}
          </h2>
          <InvitePanel groupId={id} allowReset />
        </section>
      )}
      <section className={`${ui.card} ${styles.section}`} aria-labelledby="group-members">
        <h2 id="group-members" className={styles.heading}>
          {t('group_settings.members', { count: group.data.users.length })}
        </h2>
        <ul className={styles.members}>
          {group.data.users.map((user) => (
            <li key={user.id} className={styles.member}>
              <Avatar user={user} px={36} />
              <span className={styles.memberName}>
                {user.name}
                {user.id === me.id && <span className={ui.muted}> {t('group_settings.you')}</span>}
              </span>
            </li>
          ))}
        </ul>
      </section>
      <div className={`${ui.card} ${styles.section}`}>
        <LeaveSection group={group.data} me={me} />
      </div>
    </div>
  );
}
