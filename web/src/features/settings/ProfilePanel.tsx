import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { LIMITS, type Me } from '@kith/common';
import { Avatar } from '../../components/Avatar';
import { call, uploadFile } from '../../lib/api';
import { SaveButton } from '../../components/SaveButton';
import { useTranslation } from '../../lib/i18n';
import { showError } from '../../lib/notify';
import ui from '../../styles/ui.module.css';
import { checkProfile, type ProfileField, profileFormOf } from './settings';
import { storageLines } from './storage';
import { type MeChanges, useSaveMe } from './useSaveMe';
import styles from './Settings.module.css';

/** What happens to the picture on save: nothing, a new image, or no picture any more. */
type PictureChange = { kind: 'keep' } | { kind: 'new'; file: File; preview: string } | { kind: 'remove' };

/** Profile: name, picture, e-mail (the login) and a new password typed twice. */
export function ProfilePanel({ me }: { me: Me }) {
  const { t } = useTranslation();
  const { pending, save } = useSaveMe(me.id);
  const [form, setForm] = useState(() => profileFormOf(me));
  const [invalid, setInvalid] = useState<ProfileField | null>(null);
  const [picture, setPicture] = useState<PictureChange>({ kind: 'keep' });
  const fileInput = useRef<HTMLInputElement>(null);
  const hintId = useId();

  // The preview's object URL lives as long as it is shown.
  const preview = picture.kind === 'new' ? picture.preview : null;
  useEffect(() => (preview === null ? undefined : () => URL.revokeObjectURL(preview)), [preview]);

  const update = (field: ProfileField, value: string) => {
    setForm((current) => ({ ...current, [field]: value }));
    if (invalid === field) setInvalid(null);
  };

  const choose = (file: File | undefined) => {
    if (fileInput.current) fileInput.current.value = '';
    if (file === undefined) return;
    // Only images can be avatars (the server refuses anything else with invalid_avatar).
    if (!file.type.startsWith('image/')) {
      showError(t('errors.unsupported_file_type'));
      return;
    }
    setPicture({ kind: 'new', file, preview: URL.createObjectURL(file) });
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const checked = checkProfile(form);
    if ('problem' in checked) {
      setInvalid(checked.problem.field);
      showError(t(checked.problem.key));
      // The form's controls are named after the fields: the one to fix gets the focus.
      (event.currentTarget.elements.namedItem(checked.problem.field) as HTMLInputElement | null)?.focus();
      return;
    }
    setInvalid(null);
    const prepare = async (): Promise<MeChanges> => {
      const body: MeChanges = { ...checked.changes };
      if (picture.kind === 'remove') body.avatar = null;
      if (picture.kind === 'new') body.avatar = (await uploadFile(picture.file, picture.file.name, () => undefined)).id;
      return body;
    };
    void save(prepare, (saved) => {
      // The password fields empty again; the other fields show what the server kept (trimmed).
      setForm(profileFormOf(saved));
      setPicture({ kind: 'keep' });
    });
  };

  const input = (field: ProfileField) => ({
    className: ui.input,
    name: field,
    value: form[field],
    'aria-invalid': invalid === field ? true : undefined,
    onChange: (event: { target: { value: string } }) => update(field, event.target.value),
  });

  const shownAvatar = picture.kind === 'remove' ? { ...me, avatar: null } : me;

  return (
    <form className={ui.form} onSubmit={submit} noValidate>
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>{t('settings.avatar')}</legend>
        <div className={styles.avatarRow}>
          {preview !== null ? (
            // Cropped to a centred square like the server's crops (sharp's cover, centre).
            <img className={styles.avatarPreview} src={preview} alt={t('settings.avatar_preview')} />
          ) : (
            <Avatar user={shownAvatar} size={100} px={96} />
          )}
          <div className={styles.avatarActions}>
            <input
              ref={fileInput}
              id={`${hintId}-file`}
              className={styles.fileInput}
              type="file"
              accept="image/*"
              onChange={(event) => choose(event.target.files?.[0])}
            />
            <label htmlFor={`${hintId}-file`} className={ui.buttonSecondary}>
              {me.avatar || preview !== null ? t('settings.avatar_change') : t('settings.avatar_choose')}
            </label>
            {picture.kind !== 'keep' ? (
              <button type="button" className={ui.buttonLink} onClick={() => setPicture({ kind: 'keep' })}>
                {t('settings.avatar_undo')}
              </button>
            ) : (
              me.avatar && (
                <button type="button" className={ui.buttonLink} onClick={() => setPicture({ kind: 'remove' })}>
                  {t('settings.avatar_remove')}
                </button>
              )
            )}
          </div>
        </div>
        {picture.kind !== 'keep' && (
          <p className={ui.muted} role="status">
            {picture.kind === 'new' ? t('settings.avatar_pending') : t('settings.avatar_removed')}
          </p>
        )}
        <StorageUsageText />
      </fieldset>
      <label className={ui.label}>
        {t('settings.name')}
        <input {...input('name')} autoComplete="name" required maxLength={LIMITS.name} />
      </label>
      <label className={ui.label}>
        {t('settings.email')}
        <input {...input('email')} type="email" autoComplete="username" required maxLength={LIMITS.email} />
      </label>
      {/* The hint stays outside the label, so the field's name is just its label. */}
      <div className={ui.label}>
        <label htmlFor={`${hintId}-password`}>{t('settings.new_password')}</label>
        <input
          {...input('password')}
          id={`${hintId}-password`}
          type="password"
          autoComplete="new-password"
          maxLength={LIMITS.passwordMax}
          aria-describedby={`${hintId}-password-hint`}
        />
        <span id={`${hintId}-password-hint`} className={`${ui.muted} ${styles.hint}`}>
          {t('settings.new_password_hint', { min: LIMITS.passwordMin })}
        </span>
      </div>
      <label className={ui.label}>
        {t('settings.confirm_password')}
        <input {...input('confirm')} type="password" autoComplete="new-password" maxLength={LIMITS.passwordMax} />
      </label>
      <SaveButton pending={pending} />
    </form>
  );
}

/** The storage the user's uploads take, of their limit (issue 22); nothing until it is known. */
function StorageUsageText() {
  const { t, i18n } = useTranslation();
  // Read again each time the tab opens: uploads elsewhere change it.
  const usage = useQuery({
    queryKey: ['me', 'storage'],
    queryFn: ({ signal }) => call('GET /api/me/storage', { signal }),
    staleTime: 0,
  });
  if (usage.data === undefined) return null;
  return (
    <p className={ui.muted} data-testid="storage-usage">
      {storageLines(usage.data, i18n.language, t).join(' ')}
    </p>
  );
}
