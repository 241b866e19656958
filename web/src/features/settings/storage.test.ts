import { describe, expect, it } from 'vitest';
import en from '../../../../locales/en_US.json';
import fr from '../../../../locales/fr_FR.json';
import { type Texts, translator } from '../../lib/translate';
import { storageLines } from './storage';

const GIB = 1024 ** 3;
const texts = { en_US: en.web as Texts, fr_FR: fr.web as Texts };

describe('storageLines', () => {
  it('says what the user holds of their limit', () => {
    const t = translator('en_US', texts);
    expect(storageLines({ used: 1.2 * GIB, limit: 5 * GIB, available: 3.8 * GIB }, 'en_US', t)).toEqual([
      'You use 1.2 GB of 5 GB.',
    ]);
  });

  it('says only what the user holds without a limit', () => {
    const t = translator('en_US', texts);
    expect(storageLines({ used: 300 * 1024 ** 2, limit: null, available: null }, 'en_US', t)).toEqual([
      'You use 300 MB.',
    ]);
  });

  it('adds what is left when the instance leaves less than the user’s own limit', () => {
    const t = translator('en_US', texts);
    expect(storageLines({ used: GIB, limit: 5 * GIB, available: 0.5 * GIB }, 'en_US', t)).toEqual([
      'You use 1 GB of 5 GB.',
      'You can still upload 512 MB.',
    ]);
    expect(storageLines({ used: 0, limit: null, available: 2 * GIB }, 'en_US', t)).toEqual([
      'You use 0 kB.',
      'You can still upload 2 GB.',
    ]);
  });

  it('writes sizes the language’s way', () => {
    const t = translator('fr_FR', texts);
    expect(storageLines({ used: 1.25 * GIB, limit: 5 * GIB, available: 3.75 * GIB }, 'fr_FR', t)).toEqual([
      'Vous utilisez 1,3\u202fGo sur 5\u202fGo.',
    ]);
  });
});
