import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { LIMITS, type Message } from '@kith/common';
import { keys, useMe, useMessage } from '../api/queries';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { FilePreviews } from '../features/composer/FilePreviews';
import { filesToSend, isUploading, type RemoteFile } from '../features/composer/uploads';
import { useUploads } from '../features/composer/useUploads';
import { copyHidesCard, prefillText, readShareQuery, sharedText } from '../features/share/prefill';
import { takeSharedFiles } from '../features/share/sharedFiles';
import { useSubmit } from '../hooks/useSubmit';
import { call } from '../lib/api';
import { absoluteUrl } from '../lib/config';
import { useTranslation } from '../lib/i18n';
import { showAlert } from '../lib/notify';
import ui from '../styles/ui.module.css';
import styles from './Share.module.css';

/** What the form starts with, once the messages the query names are known. */
interface ShareStart {
  title: string;
  text: string;
  files: RemoteFile[];
  /** The groups offered; the form asks for a choice when there is more than one. */
  groups: { id: string; name: string }[];
  /** Set for a reply: its group is the parent's. */
  parent: Message | null;
  /** Set when an existing message is being copied into another group. */
  source: Message | null;
  /** The address of the original in the origin line of a copy. */
  originUrl: string | null;
}

/**
 * /share?title=&text=&url=&parent=&message= (product spec §2): a message prefilled from the query
 * (a share sheet, the installed app's share target, or "share to another group"), posted in the
 * group the person picks (required when they have several, spec §5), after which it opens.
 */
export default function Share() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const query = readShareQuery(params);
  const { data: me } = useMe();
  const parent = useMessage(query.parent ?? undefined);
  const source = useMessage(query.message ?? undefined);

  const failed = [parent, source].find((read) => read.isError);
  if (failed) return <LoadError error={failed.error} onRetry={() => void failed.refetch()} />;
  const waiting =
    me === undefined || (query.parent !== null && !parent.data) || (query.message !== null && !source.data);
  if (waiting) return <Spinner />;

  let start: ShareStart;
  if (source.data) {
    const original = source.data;
    const from = original.group;
    const originUrl = absoluteUrl(`/messages/${original.id}`);
    start = {
      title: original.data.title ?? '',
      text: sharedText(original.data.text, t('share.shared_from', { group: from?.name ?? '', url: originUrl })),
      files: original.files,
      // A copy goes to another group: the message's own is not offered.
      groups: me.groups.filter((group) => group.id !== from?.id),
      parent: null,
      source: original,
      originUrl,
    };
  } else {
    const replyTo = parent.data ?? null;
    const group = replyTo?.group;
    start = {
      title: query.title,
      text: prefillText(query.text, query.url),
      files: [],
      groups: replyTo ? (group ? me.groups.filter((g) => g.id === group.id) : []) : me.groups,
      parent: replyTo,
      source: null,
      originUrl: null,
    };
  }
  return <ShareForm start={start} batch={params.get('files')} />;
}

function ShareForm({ start, batch }: { start: ShareStart; batch: string | null }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [title, setTitle] = useState(start.title);
  const [text, setText] = useState(start.text);
  const only = start.groups.length === 1 ? start.groups[0] : undefined;
  const [groupId, setGroupId] = useState(only?.id ?? '');
  const [groupError, setGroupError] = useState(false);
  const { files, dispatch } = useUploads(start.files);
  const { pending, run } = useSubmit({ lockAfterSuccess: true });
  const select = useRef<HTMLSelectElement>(null);
  const errorId = useId();
  const fieldId = useId();
  const uploading = isUploading(files);

  // Photos handed over by the share target are uploaded like picked ones.
  useEffect(() => {
    if (batch === null) return;
    let live = true;
    void takeSharedFiles(batch).then((photos) => {
      if (live && photos.length > 0) dispatch({ type: 'add', files: photos });
    });
    return () => {
      live = false;
    };
  }, [batch, dispatch]);

  const send = () => {
    if (uploading) return;
    if (groupId === '') {
      setGroupError(true);
      select.current?.focus();
      return;
    }
    const ids = filesToSend(files);
    if (title.trim() === '' && text.trim() === '' && ids.length === 0) {
      showAlert('errors.empty_message', 'danger');
      return;
    }
    void run(async () => {
      const message = await call('POST /api/messages', {
        body: {
          group: groupId,
          parent: start.parent?.id ?? null,
          data: {
            title,
            text,
            ...(start.source && copyHidesCard(start.source.data.no_embed === true, start.originUrl, text)
              ? { no_embed: true }
              : {}),
          },
          files: ids,
        },
      });
      client.setQueryData(keys.message(message.id), message);
      void client.invalidateQueries({ queryKey: keys.feed(groupId) });
      if (start.parent) void client.invalidateQueries({ queryKey: keys.message(start.parent.id) });
      void navigate(`/messages/${message.id}`, { replace: true });
    });
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };

  // Ctrl+Enter sends, as in the composer (product spec §5).
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
    }
  };

  const cancel = () => {
    const dirty = title.trim() !== '' || text.trim() !== '' || files.some((file) => !file.removed);
    if (dirty && !window.confirm(t('composer.confirm_cancel'))) return;
    // Opened by a share sheet, the screen may be the first of its tab: then there is no "back".
    if (window.history.length > 1) void navigate(-1);
    else void navigate('/');
  };

  const heading = start.source ? t('share.to_group') : start.parent ? t('share.reply_title') : t('share.title');

  return (
    <div className={ui.page}>
      <form className={`${ui.card} ${ui.form}`} onSubmit={submit} onKeyDown={onKeyDown} noValidate aria-busy={pending}>
        <h1 className={ui.title}>{heading}</h1>
        {start.parent && (
          <p className={ui.muted}>
            {t('share.reply_to', {
              name: start.parent.data.title?.trim() || start.parent.author?.name || t('message.untitled'),
            })}
          </p>
        )}
        {start.groups.length === 0 ? (
          <p className={ui.error} role="alert">
            {t('share.no_group')}
          </p>
        ) : only ? (
          <p className={ui.muted}>{t('share.in_group', { group: only.name })}</p>
        ) : (
          // Labels beside their fields rather than around them: a label that wraps a text area would
          // count the text in its name.
          <div className={ui.label}>
            <label htmlFor={`${fieldId}-group`}>{t('share.group')}</label>
            <select
              id={`${fieldId}-group`}
              ref={select}
              className={ui.input}
              name="group"
              required
              value={groupId}
              aria-invalid={groupError}
              aria-describedby={groupError ? errorId : undefined}
              onChange={(event) => {
                setGroupId(event.target.value);
                setGroupError(false);
              }}
            >
              <option value="">{t('share.choose_group')}</option>
              {start.groups.map((group) => (
                <option key={group.id} value={group.id}>
                  {group.name}
                </option>
              ))}
            </select>
            {groupError && (
              <span id={errorId} className={`${ui.error} ${styles.fieldError}`}>
                {t('share.group_required')}
              </span>
            )}
          </div>
        )}
        {!start.parent && (
          <div className={ui.label}>
            <label htmlFor={`${fieldId}-title`}>{t('composer.title')}</label>
            <input
              id={`${fieldId}-title`}
              className={ui.input}
              name="title"
              maxLength={LIMITS.title}
              value={title}
              onChange={(event) => setTitle(event.target.value)}
            />
          </div>
        )}
        <div className={ui.label}>
          <label htmlFor={`${fieldId}-text`}>{t('composer.text')}</label>
          <textarea
            id={`${fieldId}-text`}
            className={ui.textarea}
            name="text"
            maxLength={LIMITS.text}
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
        </div>
        <FilePreviews files={files} onToggle={(key) => dispatch({ type: 'toggleRemoved', key })} />
        <div className={`${ui.row} ${styles.actions}`}>
          <button type="button" className={ui.buttonSecondary} onClick={cancel} disabled={pending}>
            {t('composer.cancel')}
          </button>
          <button type="submit" className={ui.button} disabled={pending || uploading || start.groups.length === 0}>
            {pending && <Spinner small />}
            {t('share.submit')}
          </button>
        </div>
      </form>
    </div>
  );
}
