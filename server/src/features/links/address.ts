import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a link preview may connect to (docs/api §7.5, fetch rules). Deny by default: only
 * ordinary public unicast addresses pass. Loopback is its own class so the test-only switch
 * `LINK_PREVIEW_ALLOW_LOOPBACK` can let it through; everything else that is not public is refused,
 * whatever the switch says.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'carrier-grade-nat'
  | 'unique-local'
  | 'site-local'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'invalid';

// IPv6 ranges ipaddr.js names that embed an IPv4 address we check instead (with its bit offset).
const EMBEDDED_V4: Record<string, (bytes: number[]) => number[]> = {
  ipv4Mapped: (b) => b.slice(12, 16), // ::ffff:a.b.c.d
  rfc6145: (b) => b.slice(12, 16), // ::ffff:0:a.b.c.d (SIIT)
  rfc6052: (b) => b.slice(12, 16), // 64:ff9b::a.b.c.d (NAT64)
  '6to4': (b) => b.slice(2, 6), // 2002:aabb:ccdd::
};

function classifyV4(address: ipaddr.IPv4): AddressClass {
  switch (address.range()) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'linkLocal':
      return 'link-local';
    case 'carrierGradeNat':
      return 'carrier-grade-nat';
    case 'multicast':
      return 'multicast';
    case 'unspecified':
      return 'unspecified';
    case 'broadcast':
      return 'broadcast';
    default:
      // reserved, documentation, benchmarking, 240/4, AS112, AMT …: never a web page of its own.
      return 'reserved';
  }
}

function classifyV6(address: ipaddr.IPv6): AddressClass {
  // The typings miss some of the names the library returns (deprecatedSiteLocal, discard …).
  const range: string = address.range();
  const first = address.parts[0] ?? 0;
  // fec0::/10, checked by hand too in case the library's table changes.
  if ((first & 0xffc0) === 0xfec0) return 'site-local';
  const embedded = EMBEDDED_V4[range];
  if (embedded !== undefined) {
    const v4 = classifyV4(new ipaddr.IPv4(embedded(address.toByteArray())));
    // NAT64 and 6to4 of a public address are fine; of anything else, the embedded class decides.
    return v4;
  }
  switch (range) {
    case 'unicast': {
      // ::a.b.c.d (deprecated "IPv4-compatible") and the rest of ::/8 are not routable web hosts.
      if (first === 0) return 'reserved';
      return 'public';
    }
    case 'loopback':
      return 'loopback';
    case 'linkLocal':
      return 'link-local';
    case 'uniqueLocal':
      return 'unique-local';
    case 'deprecatedSiteLocal':
      return 'site-local';
    case 'multicast':
      return 'multicast';
    case 'unspecified':
      return 'unspecified';
    default:
      // Teredo, documentation, ORCHID, discard, benchmarking …
      return 'reserved';
  }
}

/** The class of an IP address written as text (`1.2.3.4`, `::1`, `[::1]`, `fe80::1%eth0`). */
export function classifyAddress(text: string): AddressClass {
  let value = text.trim();
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  // A zone id (fe80::1%eth0) only ever goes with link-local and multicast addresses.
  const zone = value.indexOf('%');
  if (zone !== -1) value = value.slice(0, zone);
  // Only the strict four-part decimal form for IPv4 (no 0x7f.1 or 2130706433 shortcuts).
  if (ipaddr.IPv4.isValidFourPartDecimal(value)) return classifyV4(ipaddr.IPv4.parse(value));
  if (ipaddr.IPv6.isValid(value)) {
    // Normalize through the WHATWG URL parser first: ipaddr.js reads `::a.b.c.d` (IPv4-compatible)
    // as if it were `::ffff:a.b.c.d`; the URL parser writes it as the hex form it really is.
    let normalized: string;
    try {
      normalized = new URL(`http://[${value}]/`).hostname.slice(1, -1);
    } catch {
      return 'invalid';
    }
    return classifyV6(ipaddr.IPv6.parse(normalized));
  }
  return 'invalid';
}

/** The addresses of this machine's own interfaces, normalized (read once; refused like the others). */
let ownAddresses: Set<string> | undefined;
function isOwnAddress(text: string): boolean {
  ownAddresses ??= new Set(
    Object.values(networkInterfaces())
      .flat()
      .filter((info) => info !== undefined)
      .map((info) => normalize(info.address)),
  );
  return ownAddresses.has(normalize(text));
}

function normalize(text: string): string {
  try {
    return ipaddr.process(text.replace(/%.*$/, '')).toNormalizedString();
  } catch {
    return text;
  }
}

/**
 * Why this address may not be connected to, or `null` when it may. Loopback passes only with the
 * test switch; the machine's own non-loopback addresses never do.
 */
export function refusalReason(address: string, options: { allowLoopback: boolean }): string | null {
  const kind = classifyAddress(address);
  if (kind === 'loopback') return options.allowLoopback ? null : 'loopback';
  if (kind !== 'public') return kind;
  if (isOwnAddress(address)) return 'own address';
  return null;
}
