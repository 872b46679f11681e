// Social account use cases with both kinds of caller: an assistant lists the accounts (mcp:read) but no scope
// lets it change, delete or connect one; oauth/start's body rules (the redirect's origin, per-platform fields),
// once in the route handler, hold for every caller and are checked before anything is called or kept.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  connectBlueskyAccount,
  connectLinkedinPages,
  listLinkedinPages,
  startOAuth,
  type ConnectionDeps,
} from '../../commands/social-accounts/connection-use-cases.js';
import { socialAccountDeps } from '../../commands/social-accounts/social-account-commands.js';
import {
  deleteSocialAccount,
  getTiktokCreatorInfo,
  updateSocialAccount,
} from '../../commands/social-accounts/social-account-use-cases.js';
import { ValidationError } from '../../domain/shared/errors.js';
import { OAuthStateStore } from '../../infra/social-accounts/oauth-state-store.js';
import { listSocialAccounts } from '../../projections/social-accounts/queries.js';
import { assistant, member, untouchable, writeRequest } from '../support/callers.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let deps: ConnectionDeps;
const appOrigin = 'https://app.example.org';

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  const { runtime } = service;
  deps = {
    ...socialAccountDeps({ ...runtime, readModels: runtime.readModels }),
    idempotency: runtime.idempotency,
    oauthStates: new OAuthStateStore(runtime.readModels, runtime.tokenCipher),
    redirectOrigins: new Set([appOrigin]),
    callbackUrl: (platform) => `http://localhost:3000/v1/marketing/oauth/${platform}/callback`,
  };
});
afterAll(async () => service.stop());

describe('an assistant', () => {
  test('lists the accounts with mcp:read', async () => {
    const caller = assistant(ws, 'viewer');
    await expect(
      listSocialAccounts(service.runtime.readModels, caller, { orgId: ws.orgId }),
    ).resolves.toEqual([]);
  });

  test('may not change, delete or connect accounts, whatever its scopes and role', async () => {
    const caller = assistant(ws, 'owner', ['posts:write', 'posts:schedule', 'posts:publish', 'posts:delete']);
    const orgId = ws.orgId;
    const accountId = '00000000-0000-4000-8000-000000000001';
    const refusals = [
      updateSocialAccount(untouchable(), caller, { orgId, accountId, profileUrl: null }, writeRequest()),
      deleteSocialAccount(untouchable(), caller, { orgId, accountId }, writeRequest()),
      startOAuth(untouchable(), caller, { orgId, platform: 'x', redirectUri: `${appOrigin}/done` }),
      connectBlueskyAccount(
        untouchable(),
        caller,
        { orgId, handle: 'a.bsky.social', appPassword: 'p' },
        writeRequest(),
      ),
      listLinkedinPages(untouchable(), caller, { orgId, choice: 'c' }),
      connectLinkedinPages(
        untouchable(),
        caller,
        { orgId, choice: 'c', organizationIds: ['1'] },
        writeRequest(),
      ),
    ];
    for (const refused of refusals)
      await expect(refused).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  test('reads TikTok creator info with mcp:read only as far as the account goes (an unknown one is a 404)', async () => {
    const caller = assistant(ws, 'viewer');
    const input = { orgId: ws.orgId, accountId: '00000000-0000-4000-8000-000000000001' };
    await expect(getTiktokCreatorInfo({ ...deps, logger: console }, caller, input)).rejects.toMatchObject({
      status: 404,
    });
  });
});

describe('startOAuth', () => {
  test('a redirect on another origin and fields of other platforms are one 400 naming each, before anything', async () => {
    const refused = startOAuth(
      { ...deps, connectors: untouchable(), oauthStates: untouchable() },
      member(ws, 'admin'),
      {
        orgId: ws.orgId,
        platform: 'x',
        redirectUri: 'https://evil.example.com/done',
        linkedinTarget: 'page',
        blueskyHandle: 'a.bsky.social',
      },
    );
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({
      details: [
        { path: 'redirectUri', message: expect.any(String) },
        { path: 'linkedinTarget', message: 'Only for linkedin' },
        { path: 'blueskyHandle', message: 'Only for bluesky' },
      ],
    });
  });

  test("opens an authorization for the caller: LinkedIn's target defaults to the member profile", async () => {
    const started = await startOAuth(deps, member(ws, 'admin'), {
      orgId: ws.orgId,
      platform: 'linkedin',
      redirectUri: `${appOrigin}/done`,
    });
    expect(started).toEqual({
      state: expect.any(String),
      browserNonce: expect.any(String),
      linkedinTarget: 'profile',
    });
    expect(
      await deps.oauthStates.openRedirectUri(started.state, {
        platform: 'linkedin',
        linkedinTarget: 'profile',
      }),
    ).toBe(`${appOrigin}/done`);
  });

  test('an editor, who may not manage accounts, is refused', async () => {
    const refused = startOAuth(untouchable(), member(ws, 'editor'), {
      orgId: ws.orgId,
      platform: 'x',
      redirectUri: `${appOrigin}/done`,
    });
    await expect(refused).rejects.toMatchObject({
      status: 403,
      message: 'Your role does not allow this action',
    });
  });
});
