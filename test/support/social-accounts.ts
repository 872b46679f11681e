// Connecting sandbox accounts in tests the way a user would: the sandbox's authorization URL is followed (it
// answers 302 with a code, as a user granting access), the code is exchanged, and the account recorded.
import { createHash, randomBytes } from 'node:crypto';
import {
  connectSocialAccounts,
  socialAccountDeps,
} from '../../commands/social-accounts/social-account-commands.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { SocialAccountView } from '../../domain/social-accounts/social-account.js';
import type { TestService } from './runtime.js';

export async function connectSandboxAccount(
  service: Pick<TestService, 'runtime'>,
  ref: { orgId: string; userId: string },
  platform: Platform,
  options: { account?: string } = {},
): Promise<SocialAccountView> {
  const { runtime } = service;
  const connector = runtime.connectors.get(platform);
  const verifier = randomBytes(32).toString('base64url');
  // The service's own callback: the sandbox answers only redirects to it.
  const callbackUrl = `${(runtime.env.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '')}/v1/marketing/oauth/${platform}/callback`;
  const start = await connector.startAuthorization({
    state: randomBytes(16).toString('base64url'),
    callbackUrl,
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    ...(platform === 'bluesky' ? { blueskyHandle: options.account ?? 'sandbox.bsky.social' } : {}),
  });
  const url = new URL(start.authorizationUrl);
  if (options.account) url.searchParams.set('account', options.account);
  const res = await runtime.app.request(`${url.pathname}${url.search}`);
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`sandbox authorize answered ${res.status}`);
  const params = Object.fromEntries(new URL(location).searchParams);
  const result = await connector.completeAuthorization({
    params,
    callbackUrl,
    codeVerifier: verifier,
    ...(start.context ? { context: start.context } : {}),
  });
  if (result.kind !== 'accounts') throw new Error('expected accounts from the sandbox');
  const [view] = await connectSocialAccounts(
    socialAccountDeps({ ...runtime, tokenCipher: runtime.tokenCipher }),
    { orgId: ref.orgId, platform, accounts: result.accounts },
    {
      orgId: ref.orgId,
      actor: ref.userId,
      correlationId: randomBytes(8).toString('hex'),
      now: new Date().toISOString(),
    },
  );
  return view!;
}
