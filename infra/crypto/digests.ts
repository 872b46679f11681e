// Digests the service keeps instead of secrets, and the PKCE challenge of a verifier; one definition each for
// every store of tokens, codes, states and sessions.
import { createHash } from 'node:crypto';

/** The database keeps only this digest (SHA-256, hex), so a leaked row cannot be replayed as the secret. */
export function secretDigest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** PKCE S256 (RFC 7636 §4.2): BASE64URL(SHA256(verifier)). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
