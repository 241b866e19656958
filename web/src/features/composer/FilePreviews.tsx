import { useEffect, useMemo } from 'react';
import { imageUrl } from '../../lib/api';
import { useTranslation } from '../../lib/i18n';
import type { ComposerFile } from './uploads';
import styles from './FilePreviews.module.css';

function Preview({ file, onToggle }: { file: ComposerFile; onToggle: () => void }) {
  const { t } = useTranslation();
  // While uploading, an image shows from the local file; afterwards from the server's thumbnail.
  const localUrl = useMemo(
    () => (file.local !== null && file.kind === 'image' ? URL.createObjectURL(file.local) : null),
    [file.local, file.kind],
  );
  useEffect(() => () => (localUrl !== null ? URL.revokeObjectURL(localUrl) : undefined), [localUrl]);
  const picture =
    file.remote !== null && file.kind !== 'audio' ? imageUrl('crop', '160/160', file.remote.id) : localUrl;
  const busy = file.status === 'initial' || file.status === 'uploading';
  return (
    <li className={file.removed ? `${styles.item} ${styles.removed}` : styles.item} data-status={file.status}>
      {picture !== null ? (
        <img src={picture} alt="" />
      ) : (
        <span className={styles.kind}>{t(`composer.kind_${file.kind}`)}</span>
      )}
      <span className={styles.name}>{file.name}</span>
      {file.status === 'initial' && <span className={styles.state}>{t('composer.waiting')}</span>}
      {file.status === 'uploading' && (
        <progress
          className={styles.progress}
          max={100}
          value={file.progress}
          aria-label={t('composer.uploading', { name: file.name })}
        >
          {file.progress}%
        </progress>
      )}
      {file.status === 'raw' && (file.kind === 'video' || file.kind === 'audio') && (
        <span className={styles.state}>
          {file.kind === 'video' ? t('files.video_not_ready') : t('files.audio_not_ready')}
          {file.remote?.progress !== null && file.remote?.progress !== undefined && ` ${file.remote.progress}%`}
        </span>
      )}
      {!busy && (
        <button type="button" className={styles.toggle} onClick={onToggle}>
          {file.removed ? t('composer.restore_file') : t('composer.remove_file')}
        </button>
      )}
    </li>
  );
}

/** The composer's files: a list, or a grid when there are more than 3 (product spec §2). */
export function FilePreviews({ files, onToggle }: { files: ComposerFile[]; onToggle: (key: string) => void }) {
  if (files.length === 0) return null;
  return (
    <ul className={files.length > 3 ? `${styles.list} ${styles.grid}` : styles.list} data-testid="composer-files">
      {files.map((file) => (
        <Preview key={file.key} file={file} onToggle={() => onToggle(file.key)} />
      ))}
    </ul>
  );
}
