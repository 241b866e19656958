import { describe, expect, it } from 'vitest';
import { copyHidesCard, prefillText, readShareQuery, sharedText } from './prefill';

describe('readShareQuery', () => {
  it('reads every field, empty when missing', () => {
    expect(readShareQuery(new URLSearchParams('title=Hi&text=Look&url=https%3A%2F%2Fa.example%2F'))).toEqual({
      title: 'Hi',
      text: 'Look',
      url: 'https://a.example/',
      parent: null,
      message: null,
    });
    expect(readShareQuery(new URLSearchParams(''))).toEqual({
      title: '',
      text: '',
      url: '',
      parent: null,
      message: null,
    });
  });

  it('treats a blank parent or message as none', () => {
    const query = readShareQuery(new URLSearchParams('parent=%20&message=m1'));
    expect(query.parent).toBeNull();
    expect(query.message).toBe('m1');
  });
});

describe('prefillText', () => {
  it('appends the address on its own line', () => {
    expect(prefillText('Look at this', 'https://a.example/x')).toBe('Look at this\nhttps://a.example/x');
  });

  it('does not repeat an address the text already holds', () => {
    expect(prefillText('Look https://a.example/x', 'https://a.example/x')).toBe('Look https://a.example/x');
  });

  it('uses the address alone when there is no text, and the text alone without an address', () => {
    expect(prefillText('  ', 'https://a.example/x')).toBe('https://a.example/x');
    expect(prefillText(' Just text ', '')).toBe('Just text');
  });
});

describe('sharedText', () => {
  const line = 'Shared from Family: https://kith.example/messages/m1';

  it('puts the origin line after the text, a blank line between', () => {
    expect(sharedText('Beach day\n', line)).toBe(`Beach day\n\n${line}`);
  });

  it('is the origin line alone for a message without text', () => {
    expect(sharedText(undefined, line)).toBe(line);
    expect(sharedText('', line)).toBe(line);
  });
});

describe('copyHidesCard', () => {
  const origin = 'https://kith.example/messages/m1';

  it('hides the card when the origin line holds the first address', () => {
    expect(copyHidesCard(false, origin, sharedText('Beach day', `Shared from Family: ${origin}`))).toBe(true);
  });

  it('keeps the card of a link the original had', () => {
    const text = sharedText('Look https://video.example/v', `Shared from Family: ${origin}`);
    expect(copyHidesCard(false, origin, text)).toBe(false);
  });

  it('keeps a hidden card hidden', () => {
    expect(copyHidesCard(true, origin, 'https://video.example/v')).toBe(true);
  });
});
