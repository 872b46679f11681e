// Who the client of a request is when the service sits behind reverse proxies: TRUSTED_PROXIES names them,
// and the client is the first address, walking X-Forwarded-For from the socket peer leftwards, not among them.
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Hops of X-Forwarded-For looked at, at most (the nearest ones): a long header costs no more than this. */
export const maxForwardedHops = 32;

/**
 * An address as it appears in a socket or a forwarded header (`1.2.3.4`, `1.2.3.4:5678`, `::1`, `[::1]:80`,
 * `::ffff:1.2.3.4`), IPv4-mapped IPv6 read as the IPv4 address; null for anything else. IPv4 only in its
 * four-part decimal form, so `127.1` or `0x7f.0.0.1` are not addresses here.
 */
export function parseAddress(text: string | undefined | null): Address | null {
  if (!text) return null;
  let value = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else {
    const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(value);
    if (withPort) value = withPort[1]!;
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(value)) return ipaddr.IPv4.parse(value);
  if (!ipaddr.IPv6.isValid(value)) return null;
  const v6 = ipaddr.IPv6.parse(value);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/**
 * TRUSTED_PROXIES read: comma-separated addresses or CIDR ranges, each normalised (`10.0.0.0/8`, `::1/128`);
 * a problem naming the first entry that is neither.
 */
export function parseTrustedProxyList(raw: string | undefined): { ranges: string[] } | { problem: string } {
  const ranges: string[] = [];
  for (const item of (raw ?? '').split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const [host, bits, ...rest] = item.split('/');
    const address = parseAddress(host);
    const max = address?.kind() === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (!address || rest.length > 0 || !(prefix >= 0 && prefix <= max))
      return {
        problem: `"${item}" is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)`,
      };
    ranges.push(`${address.toString()}/${prefix}`);
  }
  return { ranges };
}

/** Where a request came from: the client's address (null when unknown) and whether its proxy says https. */
export interface ClientOrigin {
  address: string | null;
  /** True only when a trusted proxy said so in X-Forwarded-Proto. */
  forwardedHttps: boolean;
}

export class TrustedProxies {
  private readonly ranges: Array<[Address, number]>;

  /** From normalised ranges (parseTrustedProxyList); none: every socket peer is the client. */
  constructor(ranges: readonly string[] = []) {
    this.ranges = ranges.map((range) => ipaddr.parseCIDR(range));
  }

  /** Whether any proxy is trusted (with none, forwarded headers are never read). */
  get any(): boolean {
    return this.ranges.length > 0;
  }

  has(address: Address): boolean {
    return this.ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  }

  /**
   * The client behind the socket peer: the peer itself unless it is a trusted proxy; then X-Forwarded-For
   * walked right to left, past trusted proxies, to the first address that is not one (or the leftmost, when
   * all are). A hop that is no address ends the walk at the last trusted proxy: what lies left of it was
   * written by someone nobody vouches for.
   */
  clientOf(
    peer: string | undefined,
    forwardedFor: string | undefined,
    forwardedProto?: string,
  ): ClientOrigin {
    const peerAddress = parseAddress(peer);
    if (!peerAddress) return { address: peer ? peer : null, forwardedHttps: false };
    if (!this.has(peerAddress)) return { address: peerAddress.toString(), forwardedHttps: false };
    let client = peerAddress;
    const hops = (forwardedFor ?? '').split(',');
    for (let i = hops.length - 1, seen = 0; i >= 0 && seen < maxForwardedHops; i--) {
      if (hops[i]!.trim() === '') continue;
      seen++;
      const hop = parseAddress(hops[i]);
      if (!hop) break;
      client = hop;
      if (!this.has(hop)) break;
    }
    // The nearest proxy's word: the last value (proxies that append add theirs at the end).
    const proto = (forwardedProto ?? '').split(',').pop()?.trim().toLowerCase();
    return { address: client.toString(), forwardedHttps: proto === 'https' };
  }
}

/**
 * The key per-address limits count under: an IPv4 address itself, an IPv6 address's /64 (one subscriber's
 * network: a client holding a /64 would otherwise have 2^64 allowances).
 */
export function addressLimitKey(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed) return address;
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`);
  return `${network.toString()}/64`;
}
