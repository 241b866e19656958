/**
 * Embed code of a link preview (docs/api §1.10, §7.5). It is built here from URL shapes of a short
 * list of providers, never copied from the remote page or an oEmbed answer: one `<iframe>` with an
 * https `src` assembled from ids checked against strict patterns, sandboxed. Anything else is null.
 *
 * Providers: YouTube, Vimeo, Dailymotion, SoundCloud and Bandcamp. Bandcamp page URLs do not carry
 * the numeric album/track id its player needs, so a Bandcamp embed is made only from (a) a player URL
 * itself (`https://bandcamp.com/EmbeddedPlayer/album=123/...`), or (b) a `*.bandcamp.com/album/…` or
 * `/track/…` page that declares such a player URL in `og:video` / `twitter:player`; only the numeric
 * id and its kind are taken from it, the `src` is ours. Artist custom domains get no embed.
 */

export const IFRAME_SANDBOX = 'allow-scripts allow-same-origin allow-popups allow-presentation';

// The final gate on every src we write: https, a plain host, a conservative set of characters.
const SAFE_SRC = /^https:\/\/[a-z0-9.-]+\/[A-Za-z0-9/._~%?=&+-]*$/;

function iframe(src: string, width: number, height: number): string | null {
  if (!SAFE_SRC.test(src)) return null;
  const escaped = src.replace(/&/g, '&amp;');
  return (
    `<iframe src="${escaped}" width="${width}" height="${height}" frameborder="0" ` +
    `sandbox="${IFRAME_SANDBOX}" allowfullscreen></iframe>`
  );
}

function parse(text: string): URL | null {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username !== '' || url.password !== '') return null;
    return url;
  } catch {
    return null;
  }
}

const segments = (url: URL): string[] => url.pathname.split('/').filter((s) => s !== '');
const host = (url: URL): string => url.hostname.toLowerCase().replace(/^www\./, '');

// --- YouTube ---------------------------------------------------------------------------------
const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;
const YOUTUBE_HOSTS = new Set(['youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtube-nocookie.com']);

/** `t=90`, `t=1m30s`, `start=90` → seconds, or null. */
function youtubeStart(url: URL): number | null {
  const value = url.searchParams.get('t') ?? url.searchParams.get('start');
  if (value === null) return null;
  if (/^\d{1,6}s?$/.test(value)) return Number.parseInt(value, 10) || null;
  const match = /^(?:(\d{1,2})h)?(?:(\d{1,3})m)?(?:(\d{1,5})s)?$/.exec(value);
  if (match === null) return null;
  const seconds = Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  return seconds > 0 ? seconds : null;
}

function youtube(url: URL): string | null {
  const h = host(url);
  const parts = segments(url);
  let id: string | undefined;
  if (h === 'youtu.be') id = parts.length === 1 ? parts[0] : undefined;
  else if (YOUTUBE_HOSTS.has(h)) {
    if (parts[0] === 'watch' && parts.length === 1) id = url.searchParams.get('v') ?? undefined;
    else if (['shorts', 'embed', 'live', 'v'].includes(parts[0] ?? '') && parts.length === 2) id = parts[1];
  }
  if (id === undefined || !YOUTUBE_ID.test(id)) return null;
  const start = youtubeStart(url);
  return iframe(`https://www.youtube-nocookie.com/embed/${id}${start !== null ? `?start=${start}` : ''}`, 560, 315);
}

// --- Vimeo -----------------------------------------------------------------------------------
const VIMEO_ID = /^\d{1,12}$/;
const VIMEO_HASH = /^[0-9a-f]{6,20}$/;

function vimeo(url: URL): string | null {
  const h = host(url);
  const parts = segments(url);
  let id: string | undefined;
  let hash: string | undefined;
  if (h === 'player.vimeo.com') {
    if (parts[0] === 'video' && parts.length === 2) {
      id = parts[1];
      hash = url.searchParams.get('h') ?? undefined;
    }
  } else if (h === 'vimeo.com') {
    if (parts.length === 1 || (parts.length === 2 && VIMEO_HASH.test(parts[1] ?? ''))) {
      [id, hash] = parts; // vimeo.com/ID or vimeo.com/ID/HASH (unlisted)
    } else if (parts[0] === 'channels' && parts.length === 3) id = parts[2];
    else if (parts[0] === 'groups' && parts[2] === 'videos' && parts.length === 4) id = parts[3];
    else if (parts[0] === 'video' && parts.length === 2) id = parts[1];
  }
  if (id === undefined || !VIMEO_ID.test(id)) return null;
  const query = hash !== undefined && VIMEO_HASH.test(hash) ? `?h=${hash}` : '';
  return iframe(`https://player.vimeo.com/video/${id}${query}`, 640, 360);
}

// --- Dailymotion -----------------------------------------------------------------------------
const DAILYMOTION_ID = /^[a-zA-Z0-9]{5,12}$/;

function dailymotion(url: URL): string | null {
  const h = host(url);
  const parts = segments(url);
  let id: string | undefined;
  if (h === 'dai.ly' && parts.length === 1) id = parts[0];
  else if (h === 'dailymotion.com') {
    // /video/x7tgad0 or the older /video/x7tgad0_some-title; /embed/video/x7tgad0
    if (parts[0] === 'video' && parts.length === 2) id = parts[1]?.split('_', 1)[0];
    else if (parts[0] === 'embed' && parts[1] === 'video' && parts.length === 3) id = parts[2];
  } else if (h === 'geo.dailymotion.com' && parts[0] === 'player.html') {
    id = url.searchParams.get('video') ?? undefined;
  }
  if (id === undefined || !DAILYMOTION_ID.test(id)) return null;
  return iframe(`https://www.dailymotion.com/embed/video/${id}`, 640, 360);
}

// --- SoundCloud ------------------------------------------------------------------------------
const SOUNDCLOUD_NAME = /^[a-z0-9][a-z0-9_-]{0,99}$/i;
// First path segments that are SoundCloud's own pages, not a user.
const SOUNDCLOUD_RESERVED = new Set([
  'discover',
  'search',
  'stream',
  'upload',
  'you',
  'charts',
  'pages',
  'settings',
  'messages',
  'notifications',
  'people',
  'tags',
  'stations',
  'signin',
  'logout',
  'pro',
  'jobs',
  'imprint',
  'terms-of-use',
  'mobile',
]);
// Second segments that are parts of a profile, not a track.
const SOUNDCLOUD_PROFILE_PAGES = new Set([
  'tracks',
  'albums',
  'sets',
  'reposts',
  'likes',
  'followers',
  'following',
  'comments',
  'popular-tracks',
  'spotlight',
]);

function soundcloud(url: URL): string | null {
  const h = host(url);
  if (h !== 'soundcloud.com' && h !== 'm.soundcloud.com') return null;
  const parts = segments(url);
  if (!parts.every((p) => SOUNDCLOUD_NAME.test(p))) return null;
  const [user, second, third] = parts;
  if (user === undefined || SOUNDCLOUD_RESERVED.has(user.toLowerCase())) return null;
  let path: string;
  if (parts.length === 2 && second !== undefined && !SOUNDCLOUD_PROFILE_PAGES.has(second.toLowerCase())) {
    path = `${user}/${second}`; // a track
  } else if (parts.length === 3 && second === 'sets' && third !== undefined) {
    path = `${user}/sets/${third}`; // a playlist
  } else {
    return null;
  }
  const track = encodeURIComponent(`https://soundcloud.com/${path}`);
  return iframe(`https://w.soundcloud.com/player/?url=${track}`, 640, 166);
}

// --- Bandcamp --------------------------------------------------------------------------------
const BANDCAMP_PLAYER = /^\/EmbeddedPlayer\/(?:v=2\/)?(album|track)=(\d{1,12})(?:\/|$)/;
const BANDCAMP_PAGE_HOST = /^[a-z0-9-]{1,63}\.bandcamp\.com$/;

function bandcampPlayer(url: URL): string | null {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.hostname.toLowerCase() !== 'bandcamp.com') return null;
  const match = BANDCAMP_PLAYER.exec(url.pathname);
  if (match === null) return null;
  const [, kind, id] = match;
  return iframe(
    `https://bandcamp.com/EmbeddedPlayer/${kind}=${id}/size=large/bgcol=ffffff/linkcol=0687f5/tracklist=false/transparent=true/`,
    350,
    470,
  );
}

function bandcamp(url: URL, players: readonly string[]): string | null {
  const direct = bandcampPlayer(url);
  if (direct !== null) return direct;
  const parts = segments(url);
  if (!BANDCAMP_PAGE_HOST.test(url.hostname.toLowerCase())) return null;
  if (parts.length !== 2 || (parts[0] !== 'album' && parts[0] !== 'track')) return null;
  for (const player of players) {
    const parsed = parse(player);
    const code = parsed === null ? null : bandcampPlayer(parsed);
    if (code !== null) return code;
  }
  return null;
}

const PROVIDERS: ((url: URL) => string | null)[] = [youtube, vimeo, dailymotion, soundcloud];

/**
 * The embed code for a link, or null. `urls` are tried in order (the requested URL, then the final
 * URL after redirects, then the canonical URL); `players` are the player URLs the page declared,
 * read only for Bandcamp pages.
 */
export function embedCode(urls: readonly string[], players: readonly string[] = []): string | null {
  for (const text of urls) {
    const url = parse(text);
    if (url === null) continue;
    for (const provider of PROVIDERS) {
      const code = provider(url);
      if (code !== null) return code;
    }
    const code = bandcamp(url, players);
    if (code !== null) return code;
  }
  return null;
}
