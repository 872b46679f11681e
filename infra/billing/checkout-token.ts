// The checkout token (security audit 6): GET ORG/billing/checkout-data hands the web app an opaque value that
// binds the workspace id and an expiry, sealed with the service's token cipher (AES-256-GCM, the workspace id as
// associated data, so it cannot be moved to another workspace or altered). The web app passes it to the
// provider's checkout as custom data (`customData: { orgId, checkoutToken }`); a provider notice may bind a
// workspace that is not bound to a provider subscription yet only when it carries a valid one.
import type { TokenCipher } from '../crypto/token-cipher.js';

/** How long a checkout token is good for, measured against the provider's time of the notice. */
export const CHECKOUT_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
/** A checkout token is about 100 characters; anything far longer is not one (not even decrypted). */
export const CHECKOUT_TOKEN_MAX_LENGTH = 300;

const associatedData = (orgId: string) => `billingCheckout:${orgId}`;

export class CheckoutTokens {
  constructor(
    private readonly cipher: TokenCipher,
    private readonly ttlMs: number = CHECKOUT_TOKEN_TTL_MS,
  ) {}

  /** A token for a checkout of `orgId` started at `now`. */
  issue(orgId: string, now: Date): { token: string; expiresAt: string } {
    const expiresAt = new Date(now.getTime() + this.ttlMs).toISOString();
    return {
      token: this.cipher.encrypt(JSON.stringify({ exp: expiresAt }), associatedData(orgId)),
      expiresAt,
    };
  }

  /** Whether `token` was issued by this service for `orgId` and had not expired at `at`. */
  valid(token: unknown, orgId: string, at: Date): boolean {
    if (typeof token !== 'string' || token.length === 0 || token.length > CHECKOUT_TOKEN_MAX_LENGTH)
      return false;
    let claims: unknown;
    try {
      claims = JSON.parse(this.cipher.decrypt(token, associatedData(orgId)));
    } catch {
      return false; // another key, another workspace, altered, or not a token at all
    }
    const exp = (claims as { exp?: unknown } | null)?.exp;
    const expiresAt = typeof exp === 'string' ? Date.parse(exp) : Number.NaN;
    return !Number.isNaN(at.getTime()) && Number.isFinite(expiresAt) && at.getTime() < expiresAt;
  }
}
