import { useState } from 'react';
import { useInfo, useLinkPreview } from '../../api/queries';
import { imageUrl } from '../../lib/api';
import { useTranslation } from '../../lib/i18n';
import { truncate } from './links';
import styles from './LinkCard.module.css';

const DESCRIPTION_MAX = 500; // product spec §9

/**
 * The iframe address of the server-built embed code (docs/api §7.5). Only an https `src` is kept;
 * the iframe itself is ours, so nothing the server stored is inserted as HTML.
 */
export function embedSource(code: string | null | undefined): string | null {
  if (!code) return null;
  const frame = new DOMParser().parseFromString(code, 'text/html').querySelector('iframe');
  const src = frame?.getAttribute('src') ?? '';
  try {
    return new URL(src).protocol === 'https:' ? src : null;
  } catch {
    return null;
  }
}

/**
 * The preview card of a message's first link; a video or music embed reveals on click. Nothing is
 * asked of the server, and nothing shows beyond the plain link in the text, until /api/info says
 * this instance fetches link previews (docs/api §3.1): otherwise every link would cost a 403.
 */
export function LinkCard({ url }: { url: string }) {
  const { t } = useTranslation();
  const { data: info } = useInfo();
  const previewsOn = info?.show.link_previews === true;
  const { data } = useLinkPreview(previewsOn ? url : null);
  const [revealed, setRevealed] = useState(false);
  if (!previewsOn || data === undefined || data.data.exception !== undefined) return null;
  const { title, description, providerName } = data.data;
  const embed = embedSource(data.data.code);
  const picture = data.preview !== '' ? imageUrl('crop', embed ? '1024/270' : '270/270', data.preview.id) : null;
  if (!title && !description && picture === null && embed === null) return null;

  if (embed !== null && revealed) {
    return (
      <div className={styles.embed}>
        <iframe
          src={embed}
          title={title ?? url}
          sandbox="allow-scripts allow-same-origin allow-popups allow-presentation"
          allow="autoplay; fullscreen; picture-in-picture"
          allowFullScreen
        />
      </div>
    );
  }
  const body = (
    <>
      {picture !== null && <img className={embed ? styles.wide : styles.thumb} src={picture} alt="" loading="lazy" />}
      <span className={styles.text}>
        {providerName && <span className={styles.provider}>{providerName}</span>}
        {title && <strong>{title}</strong>}
        {description && <span className={styles.description}>{truncate(description, DESCRIPTION_MAX)}</span>}
      </span>
    </>
  );
  return embed !== null ? (
    <button
      type="button"
      className={`${styles.card} ${styles.reveal}`}
      onClick={() => setRevealed(true)}
      aria-label={t('links.play', { title: title ?? url })}
    >
      {body}
      <span className={styles.play} aria-hidden="true">
        ▶
      </span>
    </button>
  ) : (
    <a className={styles.card} href={url} target="_blank" rel="noopener noreferrer nofollow">
      {body}
    </a>
  );
}
