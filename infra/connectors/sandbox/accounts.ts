// The sandbox platform's side of OAuth and of its accounts: authorization codes bound to a PKCE challenge,
// deterministic account identities, and revocation (an operator setting that makes refresh and calls fail `auth`).
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Platform } from '../../../domain/shared/platforms.js';
import type { SandboxTables } from './migrations.js';

/** How long an authorization code can be exchanged (real platforms allow 30 s to 10 min). */
export const AUTHORIZATION_CODE_TTL_MS = 5 * 60_000;

/** Sandbox account names and Bluesky handles: letters, digits, `_`, `.` and `-`. */
export const SANDBOX_ACCOUNT_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export const defaultSandboxAccount = (platform: Platform) => `sandbox_${platform}`;

export const sha256 = (value: string | Buffer) => createHash('sha256').update(value).digest();

/** The callback URLs the sandbox will redirect to for a platform: only the service's own (no open redirect). */
export function sandboxCallbackUrls(publicBaseUrl: string, platform: Platform): string[] {
  const urls = [`${publicBaseUrl}/v1/marketing/oauth/${platform}/callback`];
  if (platform === 'linkedin') urls.push(`${publicBaseUrl}/v1/marketing/oauth/linkedin-pages/callback`);
  return urls;
}

/** The same account name always maps to the same platform id, as a real account keeps its id across grants. */
export function sandboxExternalId(platform: Platform, handle: string): string {
  const digest = sha256(`${platform}:${handle.toLowerCase()}`);
  if (platform === 'bluesky') return `did:plc:${base32(digest).slice(0, 24)}`;
  // 18 decimal digits: fits the numeric ids most platforms use, without leading zeros.
  return (10n ** 17n + (BigInt(`0x${digest.subarray(0, 8).toString('hex')}`) % (9n * 10n ** 17n))).toString();
}

export function base32(bytes: Uint8Array): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

export interface IssuedCode {
  code: string;
  expiresAt: string;
}

/** What the authorize page does when the user grants access: a single-use code bound to the PKCE challenge. */
export async function issueAuthorizationCode(
  db: Kysely<SandboxTables>,
  input: { platform: Platform; accountHandle: string; codeChallenge: string; redirectUri: string; now: Date },
): Promise<IssuedCode> {
  const code = randomBytes(24).toString('base64url');
  const expiresAt = new Date(input.now.getTime() + AUTHORIZATION_CODE_TTL_MS).toISOString();
  // Expired and used codes are of no further use; dropping them here keeps the table small.
  await db
    .deleteFrom('sandbox_authorization_codes')
    .where('expires_at', '<', new Date(input.now.getTime() - AUTHORIZATION_CODE_TTL_MS).toISOString())
    .execute();
  await db
    .insertInto('sandbox_authorization_codes')
    .values({
      code_hash: sha256(code).toString('hex'),
      platform: input.platform,
      account_handle: input.accountHandle,
      code_challenge: input.codeChallenge,
      redirect_uri: input.redirectUri,
      expires_at: expiresAt,
      used_at: null,
    })
    .execute();
  return { code, expiresAt };
}

/** Takes a code once: a second exchange, an expired code or another platform's code finds nothing. */
export async function consumeAuthorizationCode(
  db: Kysely<SandboxTables>,
  input: { platform: Platform; code: string; now: Date },
): Promise<{ accountHandle: string; codeChallenge: string; redirectUri: string } | null> {
  const row = await db
    .updateTable('sandbox_authorization_codes')
    .set({ used_at: input.now.toISOString() })
    .where('code_hash', '=', sha256(input.code).toString('hex'))
    .where('platform', '=', input.platform)
    .where('used_at', 'is', null)
    .where('expires_at', '>', input.now.toISOString())
    .returning(['account_handle', 'code_challenge', 'redirect_uri'])
    .executeTakeFirst();
  return row
    ? { accountHandle: row.account_handle, codeChallenge: row.code_challenge, redirectUri: row.redirect_uri }
    : null;
}

/** Records a grant; a new grant lifts an earlier revocation, as re-authorizing an app does. */
export async function recordSandboxAccount(
  db: Kysely<SandboxTables>,
  account: { platform: Platform; externalId: string; handle: string; name: string },
): Promise<void> {
  await db
    .insertInto('sandbox_accounts')
    .values({
      platform: account.platform,
      external_id: account.externalId,
      handle: account.handle,
      name: account.name,
      revoked_at: null,
    })
    .onConflict((oc) =>
      oc
        .columns(['platform', 'external_id'])
        .doUpdateSet({ handle: account.handle, name: account.name, revoked_at: null }),
    )
    .execute();
}

/**
 * Revokes (or restores) the service's access to a sandbox account. An account the sandbox has not seen yet is
 * recorded revoked, so tests and operators can prepare a refusal before the account connects.
 */
export async function setSandboxAccountRevoked(
  db: Kysely<SandboxTables>,
  platform: Platform,
  externalId: string,
  revoked: boolean,
): Promise<void> {
  const revokedAt = revoked ? new Date().toISOString() : null;
  await db
    .insertInto('sandbox_accounts')
    .values({
      platform,
      external_id: externalId,
      handle: externalId,
      name: externalId,
      revoked_at: revokedAt,
    })
    .onConflict((oc) => oc.columns(['platform', 'external_id']).doUpdateSet({ revoked_at: revokedAt }))
    .execute();
}

export async function isSandboxAccountRevoked(
  db: Kysely<SandboxTables>,
  platform: Platform,
  externalId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('sandbox_accounts')
    .select('revoked_at')
    .where('platform', '=', platform)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
  return row?.revoked_at != null;
}
