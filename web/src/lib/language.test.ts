import { beforeEach, describe, expect, it } from 'vitest';
import { matchBrowserLanguage } from './browserLanguage';
import { deviceLanguage, LANGUAGE_KEY, rememberLanguage, setBrowserLanguage } from './language';
import { clearSession, setApiKey } from './session';
import { storage } from './storage';

describe('matchBrowserLanguage', () => {
  it('takes an exact match, then the same language in another region', () => {
    expect(matchBrowserLanguage(['pt-BR'])).toBe('pt_BR');
    expect(matchBrowserLanguage(['pt-PT', 'en'])).toBe('pt_BR');
    expect(matchBrowserLanguage(['de-AT'])).toBe('de_DE');
    expect(matchBrowserLanguage(['ta'])).toBe('ta_IN');
    expect(matchBrowserLanguage(['zgh-Tfng-MA'])).toBe('zgh');
  });

  it('follows the order of preference and skips what is not offered', () => {
    expect(matchBrowserLanguage(['ja-JP', 'ko-KR', 'en-US'])).toBe('ko_KR');
    expect(matchBrowserLanguage(['ja', 'it'])).toBeUndefined();
    expect(matchBrowserLanguage([])).toBeUndefined();
  });

  it('reads Chinese scripts and Norwegian variants', () => {
    expect(matchBrowserLanguage(['zh-CN'])).toBe('zh_Hans');
    expect(matchBrowserLanguage(['zh-Hans-SG'])).toBe('zh_Hans');
    expect(matchBrowserLanguage(['zh-TW', 'fr'])).toBe('fr_FR');
    expect(matchBrowserLanguage(['nn-NO'])).toBe('nb_NO');
    expect(matchBrowserLanguage(['no'])).toBe('nb_NO');
  });
});

describe('the device’s language', () => {
  beforeEach(() => storage.clear());

  it('is the page’s default until one is picked, then the one picked', () => {
    expect(deviceLanguage()).toBe('en_US');
    rememberLanguage('ko_KR');
    expect(deviceLanguage()).toBe('ko_KR');
  });

  it('takes the browser’s language, when matched, before the page’s default', () => {
    setBrowserLanguage('ko_KR');
    expect(deviceLanguage()).toBe('ko_KR');
    rememberLanguage('de_DE');
    expect(deviceLanguage()).toBe('de_DE');
    setBrowserLanguage(undefined);
  });

  it('ignores a stored code that is not offered', () => {
    storage.set(LANGUAGE_KEY, 'xx_XX');
    expect(deviceLanguage()).toBe('en_US');
  });

  it('survives a logout, which forgets everything else', () => {
    setApiKey('secret');
    rememberLanguage('ta_IN');
    storage.set('draft', 'text');
    clearSession();
    expect(storage.get('apiKey')).toBeNull();
    expect(storage.get('draft')).toBeNull();
    expect(deviceLanguage()).toBe('ta_IN');
  });
});
