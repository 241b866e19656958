import { lazy, Suspense, useState } from 'react';
import { useFile } from '../../api/queries';
import type { FileObject } from '@kith/common';
import { fileUrl, imageUrl } from '../../lib/api';
import { useTranslation } from '../../lib/i18n';
import { thumbnailSrcSet, thumbnailUrl, thumbnailWidth } from './thumbnails';
import styles from './Files.module.css';

const Lightbox = lazy(() => import('../../components/lightbox/Lightbox').then((m) => ({ default: m.Lightbox })));

function kind(type: string): 'image' | 'video' | 'audio' | 'pdf' | 'other' {
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  return type === 'application/pdf' ? 'pdf' : 'other';
}

/** A video or audio file, which may still be converting ('not ready yet', with its progress). */
function MediaFile({ file: initial }: { file: FileObject }) {
  const { t } = useTranslation();
  // Live `file` events update this cache entry when the conversion moves on.
  const { data: file = initial } = useFile(initial.id, initial);
  const isVideo = kind(file.type) === 'video';
  if (file.status === 'raw') {
    return (
      <div className={styles.notReady}>
        {isVideo && <img src={imageUrl('thumbnail', '1280/720', file.id)} alt="" />}
        <p>
          {isVideo ? t('files.video_not_ready') : t('files.audio_not_ready')}
          {file.progress !== null && ` ${file.progress}%`}
        </p>
      </div>
    );
  }
  return isVideo ? (
    <video
      className={styles.video}
      controls
      preload="metadata"
      poster={imageUrl('thumbnail', '1280/720', file.id)}
      src={fileUrl(file.contentUrl)}
    />
  ) : (
    <audio className={styles.audio} controls preload="metadata" src={fileUrl(file.contentUrl)} />
  );
}

/**
 * A message's files: pictures (a grid when there are more than 3) that open in the lightbox,
 * players for video and audio, and the first page of a PDF that downloads the document.
 */
export function Files({ files }: { files: FileObject[] }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState<number | null>(null);
  const images = files.filter((file) => kind(file.type) === 'image');
  const others = files.filter((file) => kind(file.type) !== 'image');
  if (files.length === 0) return null;
  const grid = images.length > 3;
  return (
    <div className={styles.files}>
      {images.length > 0 && (
        <div className={grid ? styles.grid : styles.stack} data-testid={grid ? 'file-grid' : 'file-stack'}>
          {images.map((file, index) => (
            <button
              key={file.id}
              type="button"
              className={styles.imageButton}
              onClick={() => setOpen(index)}
              aria-label={t('files.open_image', { name: file.name })}
            >
              {grid ? (
                <img src={imageUrl('crop', '320/180', file.id)} alt={file.name} loading="lazy" />
              ) : (
                // The browser picks the thumbnail by the displayed width (the content column, at
                // most 720 px) and the screen's density.
                <img
                  src={thumbnailUrl(file.id, 720)}
                  srcSet={thumbnailSrcSet(file.id)}
                  sizes="(max-width: 720px) 100vw, 720px"
                  alt={file.name}
                  loading="lazy"
                />
              )}
            </button>
          ))}
        </div>
      )}
      {others.map((file) =>
        kind(file.type) === 'pdf' ? (
          // Downloaded, never opened: the server sends PDFs as attachments, since a browser's PDF
          // viewer would run the document's scripts on our origin. The first page is the preview.
          <a
            key={file.id}
            className={styles.pdf}
            href={fileUrl(file.contentUrl)}
            download={file.name}
            aria-label={t('files.download_named', { name: file.name || t('files.pdf') })}
          >
            <img src={imageUrl('thumbnail', '420/994', file.id)} alt="" loading="lazy" />
            <span>{file.name || t('files.pdf')}</span>
            <span className={styles.pdfAction}>{t('files.download')}</span>
          </a>
        ) : kind(file.type) === 'other' ? (
          <a key={file.id} href={fileUrl(file.contentUrl)} download>
            {file.name || t('files.download')}
          </a>
        ) : (
          <MediaFile key={file.id} file={file} />
        ),
      )}
      {open !== null && (
        <Suspense fallback={null}>
          <Lightbox
            images={images.map((file) => ({
              // The lightbox fills the window: the thumbnail that covers its width on this screen.
              src: thumbnailUrl(file.id, thumbnailWidth(window.innerWidth, window.devicePixelRatio)),
              alt: file.name,
            }))}
            index={open}
            onIndexChange={setOpen}
            onClose={() => setOpen(null)}
          />
        </Suspense>
      )}
    </div>
  );
}
