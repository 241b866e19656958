import { type ClipboardEvent, type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { LIMITS } from '@kith/common';
import { useInfo } from '../../api/queries';
import type { Message } from '@kith/common';
import { Spinner } from '../../components/Spinner';
import { call } from '../../lib/api';
import { useTranslation } from '../../lib/i18n';
import { showAlert } from '../../lib/notify';
import { filesToSend, isUploading } from './uploads';
import ui from '../../styles/ui.module.css';
import { FilePreviews } from './FilePreviews';
import { FormatToolbar, runFormat } from './FormatToolbar';
import { shortcutAction } from './formatting';
import { toJpeg } from './pastedImage';
import { useUploads } from './useUploads';
import { useMentions } from '../mentions/useMentions';
import mentionStyles from '../mentions/Mentions.module.css';
import styles from './Writer.module.css';

interface WriterProps {
  /** The group to post in; without one the submit button stays disabled. */
  groupId: string | null;
  /** Set for a reply. */
  parentId?: string;
  /** Set to edit an existing message. */
  message?: Message;
  onDone: (message: Message) => void;
  onCancel?: () => void;
  autoFocus?: boolean;
  /** A reply box shows a one-line text field until it is used. */
  compact?: boolean;
}

/**
 * The message composer for new messages, replies and edits (product spec §2, §4, §5): title, text,
 * files uploaded one at a time, Ctrl+Enter to send, and a confirmation before dropping a draft.
 * The text has the formatting toolbar and its shortcuts (Ctrl/⌘ + B, I, K: FormatToolbar.tsx).
 */
export function Writer({
  groupId,
  parentId,
  message,
  onDone,
  onCancel,
  autoFocus = false,
  compact = false,
}: WriterProps) {
  const { t } = useTranslation();
  const info = useInfo();
  const [title, setTitle] = useState(message?.data.title ?? '');
  const [text, setText] = useState(message?.data.text ?? '');
  const { files, dispatch } = useUploads(message?.files ?? []);
  const [sending, setSending] = useState(false);
  const textRef = useRef<HTMLTextAreaElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const textId = useId();
  const uploading = isUploading(files);
  const upload = info.data?.upload;
  const mentions = useMentions({ groupId, field: textRef, text, setText, initial: message?.mentions });

  useEffect(() => {
    if (autoFocus) textRef.current?.focus();
  }, [autoFocus]);

  const dirty = title.trim() !== '' || text.trim() !== '' || files.some((file) => !file.removed);

  const send = async () => {
    if (sending || uploading || groupId === null) return;
    const ids = filesToSend(files);
    if (title.trim() === '' && text.trim() === '' && ids.length === 0) {
      showAlert('errors.empty_message', 'danger');
      return;
    }
    setSending(true);
    try {
      const data = { title, text };
      // The people picked after `@` whose name the text still holds (issue 21).
      const mentioned = mentions.mentionIds(text);
      const answer = message
        ? await call('PUT /api/messages/{id}', {
            params: { id: message.id },
            body: { data: { ...message.data, ...data }, files: ids, mentions: mentioned },
          })
        : await call('POST /api/messages', {
            body: { group: groupId, parent: parentId ?? null, data, files: ids, mentions: mentioned },
          });
      setTitle('');
      setText('');
      dispatch({ type: 'reset' });
      onDone(answer);
    } catch {
      showAlert('errors.error_new_message', 'danger');
    } finally {
      setSending(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void send();
    }
  };

  const onTextKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mentions.onKeyDown(event)) return;
    const action = shortcutAction(event);
    if (action === null) return;
    event.preventDefault();
    runFormat(event.currentTarget, action, t('format.link_text'), setText);
  };

  const onPaste = (event: ClipboardEvent) => {
    const pasted = [...event.clipboardData.files].filter((file) => file.type.startsWith('image/'));
    if (pasted.length === 0 || upload?.image === false) return;
    event.preventDefault();
    Promise.all(pasted.map((file, index) => toJpeg(file, `pasted-${Date.now()}-${index + 1}.jpg`))).then(
      (jpegs) => dispatch({ type: 'add', files: jpegs }),
      () => showAlert('errors.error_upload_one_by_one', 'danger'),
    );
  };

  const cancel = () => {
    if (dirty && !window.confirm(t('composer.confirm_cancel'))) return;
    setTitle('');
    setText('');
    dispatch({ type: 'reset' });
    onCancel?.();
  };

  const picker = (accept: string, label: string, multiple: boolean, testId: string) => (
    <FilePicker
      key={testId}
      accept={accept}
      label={label}
      multiple={multiple}
      testId={testId}
      onPick={(chosen) => dispatch({ type: 'add', files: chosen })}
    />
  );

  const expanded = !compact || dirty || message !== undefined;
  const toolbar = <FormatToolbar field={textRef} onChange={setText} controls={textId} />;
  const nearLimit = text.length > LIMITS.text * 0.9;

  return (
    <form
      ref={formRef}
      className={`${styles.writer} ${ui.form}`}
      onSubmit={submit}
      onKeyDown={onKeyDown}
      aria-busy={sending}
    >
      {expanded && parentId === undefined && (
        <input
          className={ui.input}
          name="title"
          placeholder={t('composer.title_placeholder')}
          aria-label={t('composer.title')}
          maxLength={LIMITS.title}
          value={title}
          onChange={(event) => setTitle(event.target.value)}
        />
      )}
      {expanded && parentId === undefined && toolbar}
      <div className={mentionStyles.anchor}>
        <textarea
          id={textId}
          ref={textRef}
          className={expanded ? ui.textarea : `${ui.textarea} ${styles.compact}`}
          name="text"
          placeholder={parentId ? t('composer.reply_placeholder') : t('composer.text_placeholder')}
          aria-label={parentId ? t('composer.reply') : t('composer.text')}
          maxLength={LIMITS.text}
          value={text}
          {...mentions.fieldProps}
          onChange={(event) => {
            setText(event.target.value);
            mentions.onTextChange();
          }}
          onKeyDown={onTextKeyDown}
          onPaste={onPaste}
        />
        {mentions.list}
      </div>
      {/* A reply box grows from one line as it is used: its toolbar comes below, so the field does not move. */}
      {expanded && parentId !== undefined && toolbar}
      {nearLimit && (
        <p className={ui.muted} aria-live="polite">
          {t('composer.characters_left', { count: Math.max(0, LIMITS.text - text.length) })}
        </p>
      )}
      <FilePreviews files={files} onToggle={(key) => dispatch({ type: 'toggleRemoved', key })} />
      {expanded && (
        <div className={styles.actions}>
          <div className={ui.row}>
            {upload?.image && picker('image/*', t('composer.add_images'), true, 'pick-images')}
            {upload?.video && picker('video/*', t('composer.add_video'), false, 'pick-video')}
            {upload?.audio && picker('audio/*', t('composer.add_audio'), false, 'pick-audio')}
            {upload?.pdf && picker('application/pdf', t('composer.add_pdf'), false, 'pick-pdf')}
          </div>
          <div className={ui.row}>
            {(onCancel !== undefined || dirty) && (
              <button type="button" className={ui.buttonSecondary} onClick={cancel} disabled={sending}>
                {t('composer.cancel')}
              </button>
            )}
            <button
              type="submit"
              className={ui.button}
              disabled={groupId === null || uploading || sending}
              title={t('composer.send_hint')}
            >
              {sending && <Spinner small />}
              {message ? t('composer.save') : parentId ? t('composer.send_reply') : t('composer.send')}
            </button>
          </div>
        </div>
      )}
    </form>
  );
}

interface FilePickerProps {
  accept: string;
  label: string;
  multiple: boolean;
  testId: string;
  onPick: (files: File[]) => void;
}

/**
 * A file picker shown as a button. The button is what Tab reaches and what shows the focus ring;
 * the file input itself stays hidden and out of the tab order, opened by the button's click.
 */
function FilePicker({ accept, label, multiple, testId, onPick }: FilePickerProps) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className={ui.buttonSecondary} onClick={() => input.current?.click()}>
        {label}
      </button>
      <input
        ref={input}
        className="visually-hidden"
        type="file"
        tabIndex={-1}
        aria-hidden="true"
        accept={accept}
        multiple={multiple}
        data-testid={testId}
        onChange={(event) => {
          const chosen = [...(event.target.files ?? [])];
          event.target.value = '';
          if (chosen.length > 0) onPick(chosen);
        }}
      />
    </>
  );
}
