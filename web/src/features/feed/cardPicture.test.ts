import { IMAGE_SIZES } from '@kith/common';
import { describe, expect, it } from 'vitest';
import { cardPicture } from './cardPicture';

describe('cardPicture', () => {
  it('crops pictures of images and videos (a video still is its poster)', () => {
    for (const type of ['image/jpeg', 'image/png', 'image/webp', 'video/mp4', 'video/webm']) {
      expect(cardPicture(type), type).toEqual({ kind: 'picture', image: 'crop', size: '320/180', top: false });
    }
  });

  it('shows the top of a PDF’s first page, not the blank middle a crop would cut', () => {
    expect(cardPicture('application/pdf')).toEqual({ kind: 'picture', image: 'thumbnail', size: '420/994', top: true });
  });

  it('gives audio and any other file an icon, as the server makes no picture of them', () => {
    expect(cardPicture('audio/mpeg')).toEqual({ kind: 'icon', icon: 'audio' });
    expect(cardPicture('audio/mp4')).toEqual({ kind: 'icon', icon: 'audio' });
    expect(cardPicture('application/zip')).toEqual({ kind: 'icon', icon: 'file' });
    expect(cardPicture('')).toEqual({ kind: 'icon', icon: 'file' });
  });

  it('asks only for sizes the server makes', () => {
    for (const type of ['image/jpeg', 'video/mp4', 'application/pdf']) {
      const picture = cardPicture(type);
      if (picture.kind !== 'picture') throw new Error(type);
      expect(IMAGE_SIZES[picture.image] as readonly string[]).toContain(picture.size);
    }
  });
});
