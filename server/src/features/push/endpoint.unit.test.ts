import { describe, expect, it } from 'vitest';
import { checkEndpointShape, RefusedEndpointError, resolveEndpoint } from './endpoint.js';

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof RefusedEndpointError) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('push endpoint rules', () => {
  it('accepts an https push service on a public name or address', () => {
    expect(refusal(() => checkEndpointShape('https://updates.push.services.mozilla.com/wpush/v2/abc', false))).toBe(
      'accepted',
    );
    expect(refusal(() => checkEndpointShape('https://8.8.8.8/push', false))).toBe('accepted');
  });

  it('refuses http, loopback, private addresses and odd ports without the test switch', () => {
    expect(refusal(() => checkEndpointShape('http://push.example.org/abc', false))).toBe('https only');
    expect(refusal(() => checkEndpointShape('https://127.0.0.1/abc', false))).toBe('address not allowed (loopback)');
    expect(refusal(() => checkEndpointShape('https://[::1]/abc', false))).toBe('address not allowed (loopback)');
    expect(refusal(() => checkEndpointShape('https://localhost/abc', false))).toBe('address not allowed (loopback)');
    expect(refusal(() => checkEndpointShape('https://192.168.1.10/abc', false))).toMatch(/^address not allowed/);
    expect(refusal(() => checkEndpointShape('https://push.example.org:22/abc', false))).toBe('port not allowed');
    expect(refusal(() => checkEndpointShape('ftp://push.example.org/abc', false))).toBe('scheme not allowed');
  });

  it('with the test switch allows loopback on any port, over http too, and nothing else more', () => {
    expect(refusal(() => checkEndpointShape('http://127.0.0.1:34567/push/1', true))).toBe('accepted');
    expect(refusal(() => checkEndpointShape('http://push.example.org/abc', true))).toBe('https only');
    expect(refusal(() => checkEndpointShape('https://10.0.0.1/abc', true))).toMatch(/^address not allowed/);
  });

  it('resolves and pins the checked address', async () => {
    await expect(resolveEndpoint('http://127.0.0.1:34567/push/1', true)).resolves.toMatchObject({
      address: '127.0.0.1',
      family: 4,
    });
    await expect(resolveEndpoint('http://localhost:34567/push/1', false)).rejects.toThrow(RefusedEndpointError);
  });
});
