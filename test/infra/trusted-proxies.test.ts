// TRUSTED_PROXIES and the client address behind them: parsing the setting, walking X-Forwarded-For from the
// socket peer, IPv4-mapped peers, spoofed and malformed hops, and the per-address limit key.
import { describe, expect, test } from 'vitest';
import { loadEnv } from '../../api/env.js';
import {
  addressLimitKey,
  maxForwardedHops,
  parseAddress,
  parseTrustedProxyList,
  TrustedProxies,
} from '../../infra/http/trusted-proxies.js';

describe('TRUSTED_PROXIES', () => {
  test('addresses and CIDR ranges, normalised; unset or empty is none', () => {
    expect(loadEnv({ TRUSTED_PROXIES: ' 10.0.0.5, 172.16.0.0/12 ,::1, fd00::/8' }).TRUSTED_PROXIES).toEqual([
      '10.0.0.5/32',
      '172.16.0.0/12',
      '::1/128',
      'fd00::/8',
    ]);
    expect(loadEnv({}).TRUSTED_PROXIES).toEqual([]);
    expect(loadEnv({ TRUSTED_PROXIES: '' }).TRUSTED_PROXIES).toEqual([]);
  });

  test.each(['proxy.internal', '10.0.0.0/33', '10.0.0.1/8/1', '::1/129', '10.0.0/8', '127.1', '10.0.0.0/x'])(
    '%j stops the start with a message naming the variable',
    (value) => {
      expect(() => loadEnv({ TRUSTED_PROXIES: value })).toThrow(/TRUSTED_PROXIES: must be comma-separated/);
      expect(parseTrustedProxyList(value)).toHaveProperty('problem');
    },
  );
});

describe('the client behind the proxies', () => {
  const proxies = new TrustedProxies(['10.0.0.0/8', '::1/128']);

  test('no trusted proxies: the socket peer, whatever X-Forwarded-For says', () => {
    const none = new TrustedProxies();
    expect(none.clientOf('10.0.0.2', '203.0.113.9', 'https')).toEqual({
      address: '10.0.0.2',
      forwardedHttps: false,
    });
  });

  test('a peer that is no trusted proxy is the client, its forwarded headers ignored', () => {
    expect(proxies.clientOf('198.51.100.7', '203.0.113.9', 'https')).toEqual({
      address: '198.51.100.7',
      forwardedHttps: false,
    });
  });

  test('through a trusted proxy: the rightmost address that is not a trusted proxy', () => {
    expect(proxies.clientOf('10.0.0.2', '203.0.113.9')).toEqual({
      address: '203.0.113.9',
      forwardedHttps: false,
    });
    // A client writing its own X-Forwarded-For gets it prepended to: the proxy's entry is the one believed.
    expect(proxies.clientOf('10.0.0.2', '1.2.3.4, 203.0.113.9').address).toBe('203.0.113.9');
    // Two trusted hops (a load balancer in front of the proxy) are walked past.
    expect(proxies.clientOf('10.0.0.2', '1.2.3.4, 203.0.113.9, 10.1.2.3').address).toBe('203.0.113.9');
    // Every hop trusted: the leftmost.
    expect(proxies.clientOf('10.0.0.2', '10.9.9.9, 10.1.2.3').address).toBe('10.9.9.9');
    // No header: the proxy itself.
    expect(proxies.clientOf('10.0.0.2', undefined).address).toBe('10.0.0.2');
  });

  test('IPv4-mapped socket peers, ports and brackets are read as addresses', () => {
    expect(proxies.clientOf('::ffff:10.0.0.2', '203.0.113.9:5555').address).toBe('203.0.113.9');
    expect(proxies.clientOf('::1', '[2001:db8::1]:443').address).toBe('2001:db8::1');
    expect(proxies.clientOf('::ffff:198.51.100.7', '203.0.113.9').address).toBe('198.51.100.7');
  });

  test('a hop that is no address ends the walk at the last trusted proxy', () => {
    expect(proxies.clientOf('10.0.0.2', 'evil, unknown').address).toBe('10.0.0.2');
    expect(proxies.clientOf('10.0.0.2', '203.0.113.9, 10.0.0.3, garbage').address).toBe('10.0.0.2');
  });

  test(`only the nearest ${maxForwardedHops} hops are looked at`, () => {
    const many = [...Array<string>(100).fill('10.0.0.9')].join(', ');
    expect(proxies.clientOf('10.0.0.2', `203.0.113.9, ${many}`).address).toBe('10.0.0.9');
  });

  test('X-Forwarded-Proto is believed from a trusted proxy only (its last value)', () => {
    expect(proxies.clientOf('10.0.0.2', '203.0.113.9', 'https').forwardedHttps).toBe(true);
    expect(proxies.clientOf('10.0.0.2', '203.0.113.9', 'https, http').forwardedHttps).toBe(false);
    expect(proxies.clientOf('198.51.100.7', undefined, 'https').forwardedHttps).toBe(false);
  });

  test('no socket: no address', () => {
    expect(proxies.clientOf(undefined, '203.0.113.9')).toEqual({ address: null, forwardedHttps: false });
  });
});

describe('addresses and limit keys', () => {
  test.each(['127.1', '0x7f.0.0.1', '1.2.3', 'a.b.c.d', '', '[::1', '1.2.3.4:99999x'])(
    '%j is no address',
    (text) => {
      expect(parseAddress(text)).toBeNull();
    },
  );

  test('an IPv4 client counts as itself, an IPv6 client as its /64', () => {
    expect(addressLimitKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressLimitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:db8:1:2:bbbb::2')).toBe('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });
});
