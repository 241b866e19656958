import { describe, expect, it } from 'vitest';
import { embedCode, IFRAME_SANDBOX } from './embeds.js';

/** The single iframe Kith writes, with its src pulled out. */
function srcOf(code: string | null): string {
  expect(code).not.toBeNull();
  const html = code as string;
  const match =
    /^<iframe src="([^"]+)" width="\d+" height="\d+" frameborder="0" sandbox="([^"]+)" allowfullscreen><\/iframe>$/.exec(
      html,
    );
  expect(match, html).not.toBeNull();
  expect(match?.[2]).toBe(IFRAME_SANDBOX);
  expect(html.match(/<iframe/g)).toHaveLength(1);
  return (match?.[1] ?? '').replace(/&amp;/g, '&');
}

describe('embedCode: allow-listed URL shapes', () => {
  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
    ['https://youtube.com/watch?feature=share&v=dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
    [
      'https://m.youtube.com/watch?v=dQw4w9WgXcQ&t=1m30s',
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=90',
    ],
    ['https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
    ['https://youtu.be/dQw4w9WgXcQ?t=42', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=42'],
    ['https://www.youtube.com/shorts/abcdefghijk', 'https://www.youtube-nocookie.com/embed/abcdefghijk'],
    ['https://www.youtube.com/embed/A_b-C_d-E_f', 'https://www.youtube-nocookie.com/embed/A_b-C_d-E_f'],
    ['http://www.youtube-nocookie.com/embed/dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
    ['https://vimeo.com/76979871', 'https://player.vimeo.com/video/76979871'],
    ['https://vimeo.com/76979871/abc123def0', 'https://player.vimeo.com/video/76979871?h=abc123def0'],
    ['https://vimeo.com/channels/staffpicks/76979871', 'https://player.vimeo.com/video/76979871'],
    ['https://vimeo.com/groups/shortfilms/videos/76979871', 'https://player.vimeo.com/video/76979871'],
    ['https://player.vimeo.com/video/76979871', 'https://player.vimeo.com/video/76979871'],
    ['https://www.dailymotion.com/video/x7tgad0', 'https://www.dailymotion.com/embed/video/x7tgad0'],
    ['https://www.dailymotion.com/video/x7tgad0_some-title', 'https://www.dailymotion.com/embed/video/x7tgad0'],
    ['https://dai.ly/x7tgad0', 'https://www.dailymotion.com/embed/video/x7tgad0'],
    ['https://www.dailymotion.com/embed/video/x7tgad0', 'https://www.dailymotion.com/embed/video/x7tgad0'],
    [
      'https://soundcloud.com/forss/flickermood',
      'https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Fforss%2Fflickermood',
    ],
    [
      'https://soundcloud.com/forss/sets/soulhack',
      'https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Fforss%2Fsets%2Fsoulhack',
    ],
    [
      'https://bandcamp.com/EmbeddedPlayer/album=1234567890/size=large/tracklist=false',
      'https://bandcamp.com/EmbeddedPlayer/album=1234567890/size=large/bgcol=ffffff/linkcol=0687f5/tracklist=false/transparent=true/',
    ],
  ])('%s', (url, src) => {
    expect(srcOf(embedCode([url]))).toBe(src);
  });

  it('escapes the & of a query string in the attribute', () => {
    const code = embedCode(['https://soundcloud.com/forss/flickermood']);
    expect(code).toContain('https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com');
    expect(code).not.toMatch(/&(?!amp;)/);
  });

  it('embeds a Bandcamp page only from the player id it declares, with a src of its own', () => {
    const page = 'https://artist.bandcamp.com/album/some-record';
    const player = 'https://bandcamp.com/EmbeddedPlayer/v=2/album=987654/size=large/tracklist=false/artwork=small/';
    expect(srcOf(embedCode([page], [player]))).toBe(
      'https://bandcamp.com/EmbeddedPlayer/album=987654/size=large/bgcol=ffffff/linkcol=0687f5/tracklist=false/transparent=true/',
    );
    expect(embedCode([page], [])).toBeNull();
    // A player on another host, or a declared player with a non-numeric id, gives nothing.
    expect(embedCode([page], ['https://evil.example/EmbeddedPlayer/album=987654/'])).toBeNull();
    expect(embedCode([page], ['https://bandcamp.com/EmbeddedPlayer/album=98"><script>/'])).toBeNull();
    // Only *.bandcamp.com album and track pages read a declared player.
    expect(embedCode(['https://evil.example/album/x'], [player])).toBeNull();
  });

  it('tries the URLs in order (requested, final, canonical)', () => {
    expect(srcOf(embedCode(['https://example.com/a', 'https://youtu.be/dQw4w9WgXcQ']))).toBe(
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
    );
  });
});

describe('embedCode: everything else is null', () => {
  it.each([
    'https://example.com/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com/watch?v=short',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ"><script>alert(1)</script>',
    'https://www.youtube.com/watch?v=dQw4w9WgX%22Q',
    'https://youtu.be/dQw4w9WgXcQ/extra',
    'https://www.youtube.com/channel/UC1234567890',
    'https://www.youtube.com/',
    'https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ',
    'https://evil.example/youtu.be/dQw4w9WgXcQ',
    'https://vimeo.com/notanumber',
    'https://vimeo.com/7697987a',
    'https://vimeo.com/about',
    'https://www.dailymotion.com/video/x7"onload="alert(1)',
    'https://www.dailymotion.com/user/someone',
    'https://soundcloud.com/discover',
    'https://soundcloud.com/forss',
    'https://soundcloud.com/forss/likes',
    'https://soundcloud.com/forss/flicker%22mood',
    'https://soundcloud.com/forss/a/b/c',
    'https://bandcamp.com/EmbeddedPlayer/album=abc/',
    'https://artist.bandcamp.com/album/x',
    'javascript:alert(1)//youtu.be/dQw4w9WgXcQ',
    'ftp://youtu.be/dQw4w9WgXcQ',
    'https://user:pass@youtu.be/dQw4w9WgXcQ',
    'not a url',
  ])('%s', (url) => {
    expect(embedCode([url])).toBeNull();
  });
});
