import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { LIMITS } from '@kith/common';
import { keys } from '../api/queries';
import { useSubmit } from '../hooks/useSubmit';
import { call } from '../lib/api';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/** /create-group: create the group, then its invitation, then open its page (product spec §4). */
export default function CreateGroup() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [name, setName] = useState('');
  // Creating a group cannot be undone: the form stays locked while the new group's page opens.
  const { pending, run } = useSubmit({ lockAfterSuccess: true });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // An empty name blocks creation silently (product spec §5).
    if (name.trim() === '') return;
    void run(async () => {
      const group = await call('POST /api/groups', { body: { name: name.trim() } });
      if (group.secretKey) await call('POST /api/groups/invitation/{key}', { params: { key: group.secretKey } });
      await client.invalidateQueries({ queryKey: keys.me });
      void navigate(`/groups/${group.id}`);
    });
  };

  return (
    <div className={ui.page}>
      <form className={`${ui.card} ${ui.form}`} onSubmit={submit}>
        <h1 className={ui.title}>{t('create_group.title')}</h1>
        <p className={ui.muted}>{t('create_group.explanation')}</p>
        <label className={ui.label}>
          {t('create_group.name')}
          <input
            className={ui.input}
            name="name"
            required
            maxLength={LIMITS.name}
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </label>
        <button className={ui.button} type="submit" disabled={pending}>
          {t('create_group.submit')}
        </button>
      </form>
    </div>
  );
}
