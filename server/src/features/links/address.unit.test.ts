import { describe, expect, it } from 'vitest';
import { classifyAddress, refusalReason, type AddressClass } from './address.js';

const cases: [string, AddressClass][] = [
  // IPv4 public
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['1.1.1.1', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['169.253.255.255', 'public'],
  // loopback
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['127.1.2.3', 'loopback'],
  // RFC 1918
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  // link-local, metadata
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  // carrier-grade NAT 100.64/10
  ['100.64.0.1', 'carrier-grade-nat'],
  ['100.127.255.255', 'carrier-grade-nat'],
  // multicast, unspecified, broadcast
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  // reserved / documentation / 240/4
  ['192.0.2.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  // IPv6 public
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4007:80c::200e', 'public'],
  ['[2606:4700:4700::1111]', 'public'],
  // IPv6 specials
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fec0::1', 'site-local'],
  ['feff::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['ff05::2', 'multicast'],
  // IPv4-mapped and other IPv6 forms carrying an IPv4 address: the IPv4 address decides
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['[::ffff:127.0.0.1]', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:192.168.0.1', 'private'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:7f00:1::1', 'loopback'],
  ['2002:a9fe:a9fe::1', 'link-local'],
  ['2002:808:808::1', 'public'],
  // deprecated IPv4-compatible, Teredo, documentation: refused
  ['::127.0.0.1', 'reserved'],
  ['::8.8.8.8', 'reserved'],
  ['2001::1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  // not addresses, or IPv4 shortcuts that must never be read as addresses here
  ['localhost', 'invalid'],
  ['example.com', 'invalid'],
  ['2130706433', 'invalid'],
  ['0x7f.0.0.1', 'invalid'],
  ['127.1', 'invalid'],
  ['', 'invalid'],
  ['1.2.3.256', 'invalid'],
];

describe('classifyAddress', () => {
  it.each(cases)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('refusalReason', () => {
  it('lets public addresses through and refuses the others', () => {
    expect(refusalReason('8.8.8.8', { allowLoopback: false })).toBeNull();
    expect(refusalReason('2606:4700:4700::1111', { allowLoopback: false })).toBeNull();
    expect(refusalReason('10.0.0.1', { allowLoopback: false })).toBe('private');
    expect(refusalReason('169.254.169.254', { allowLoopback: false })).toBe('link-local');
    expect(refusalReason('example.com', { allowLoopback: false })).toBe('invalid');
  });

  it('lets loopback through only with the test switch, and nothing else with it', () => {
    expect(refusalReason('127.0.0.1', { allowLoopback: false })).toBe('loopback');
    expect(refusalReason('::1', { allowLoopback: false })).toBe('loopback');
    expect(refusalReason('::ffff:127.0.0.1', { allowLoopback: false })).toBe('loopback');
    expect(refusalReason('127.0.0.1', { allowLoopback: true })).toBeNull();
    expect(refusalReason('::1', { allowLoopback: true })).toBeNull();
    expect(refusalReason('10.0.0.1', { allowLoopback: true })).toBe('private');
    expect(refusalReason('169.254.169.254', { allowLoopback: true })).toBe('link-local');
    expect(refusalReason('0.0.0.0', { allowLoopback: true })).toBe('unspecified');
  });
});
