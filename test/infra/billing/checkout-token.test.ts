// The checkout token (finding 6): issued for one workspace, valid until its expiry against the time asked, and
// refused when moved to another workspace, altered, sealed with another key, or not a token at all.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CHECKOUT_TOKEN_MAX_LENGTH,
  CHECKOUT_TOKEN_TTL_MS,
  CheckoutTokens,
} from '../../../infra/billing/checkout-token.js';
import { TokenCipher } from '../../../infra/crypto/token-cipher.js';

const cipher = new TokenCipher([{ version: 1, key: randomBytes(32) }]);
const tokens = new CheckoutTokens(cipher);
const orgId = '3a1b2c3d-0000-4000-8000-000000000001';
const otherOrgId = '3a1b2c3d-0000-4000-8000-000000000002';
const issuedAt = new Date('2026-11-28T10:00:00.000Z');

describe('checkout tokens', () => {
  it('binds the workspace until the expiry (24 h)', () => {
    const { token, expiresAt } = tokens.issue(orgId, issuedAt);
    expect(expiresAt).toBe(new Date(issuedAt.getTime() + CHECKOUT_TOKEN_TTL_MS).toISOString());
    expect(CHECKOUT_TOKEN_TTL_MS).toBe(24 * 3600 * 1000);
    expect(token.length).toBeLessThan(CHECKOUT_TOKEN_MAX_LENGTH);
    expect(token).not.toContain(orgId);
    expect(tokens.valid(token, orgId, issuedAt)).toBe(true);
    expect(tokens.valid(token, orgId, new Date(issuedAt.getTime() + CHECKOUT_TOKEN_TTL_MS - 1))).toBe(true);
    expect(tokens.valid(token, orgId, new Date(issuedAt.getTime() + CHECKOUT_TOKEN_TTL_MS))).toBe(false);
    expect(tokens.valid(token, orgId, new Date('not a date'))).toBe(false);
  });

  it('refuses a token of another workspace, altered, of another key, or no token', () => {
    const { token } = tokens.issue(orgId, issuedAt);
    expect(tokens.valid(token, otherOrgId, issuedAt)).toBe(false);
    // Any bit of the iv, the tag or the sealed expiry flipped (base64url text has slack bits; the bytes do not).
    const parts = token.split('.');
    for (const index of [1, 2, 3]) {
      const bytes = Buffer.from(parts[index]!, 'base64url');
      for (let i = 0; i < bytes.length; i++) {
        const flipped = Buffer.from(bytes);
        flipped[i] = flipped[i]! ^ 0x01;
        const altered = parts
          .map((part, j) => (j === index ? flipped.toString('base64url') : part))
          .join('.');
        expect(tokens.valid(altered, orgId, issuedAt)).toBe(false);
      }
    }
    const otherKey = new CheckoutTokens(new TokenCipher([{ version: 1, key: randomBytes(32) }]));
    expect(otherKey.valid(token, orgId, issuedAt)).toBe(false);
    for (const bad of [undefined, null, '', 42, 'v1', 'v1.a.b.c', 'x'.repeat(CHECKOUT_TOKEN_MAX_LENGTH + 1)])
      expect(tokens.valid(bad, orgId, issuedAt)).toBe(false);
    // Sealed by the cipher for another purpose (a social account token): not a checkout token.
    expect(
      tokens.valid(
        cipher.encrypt('{"exp":"2099-01-01T00:00:00.000Z"}', `socialAccount:${orgId}:x`),
        orgId,
        issuedAt,
      ),
    ).toBe(false);
  });

  it('stays valid across a key rotation (old keys still open what they sealed)', () => {
    const oldKey = { version: 1, key: randomBytes(32) };
    const { token } = new CheckoutTokens(new TokenCipher([oldKey])).issue(orgId, issuedAt);
    const rotated = new CheckoutTokens(new TokenCipher([{ version: 2, key: randomBytes(32) }, oldKey]));
    expect(rotated.valid(token, orgId, issuedAt)).toBe(true);
  });
});
