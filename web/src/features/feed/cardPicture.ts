/**
 * What a feed card shows for its preview file (docs/api §10.6: the first attached file, or a link's
 * picture). The server makes pictures of images, of video (a still, the poster) and of a PDF's
 * first page, but none of audio (docs/api §7.4: 404), so audio and other files get an icon instead
 * of a broken image.
 */

/** A picture of the file, or an icon naming its kind. */
export type CardPicture =
  | { kind: 'picture'; image: 'crop' | 'thumbnail'; size: string; /** keep the top, not the centre */ top: boolean }
  | { kind: 'icon'; icon: 'audio' | 'file' };

/** The card picture for a preview file of MIME type `type`. */
export function cardPicture(type: string): CardPicture {
  if (type.startsWith('image/') || type.startsWith('video/'))
    return { kind: 'picture', image: 'crop', size: '320/180', top: false };
  // A 320×180 crop is the middle of the page, often blank: the whole first page is asked for and
  // the card shows its top, where a document's title is.
  if (type === 'application/pdf') return { kind: 'picture', image: 'thumbnail', size: '420/994', top: true };
  if (type.startsWith('audio/')) return { kind: 'icon', icon: 'audio' };
  return { kind: 'icon', icon: 'file' };
}
