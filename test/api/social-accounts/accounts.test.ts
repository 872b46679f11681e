// ORG/marketing/accounts through the whole service with the sandbox platforms: list, PATCH profileUrl, DELETE
// and TikTok creator-info; roles, 401, 404 across workspaces, bad input changing nothing, idempotent replays.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  connectSocialAccounts,
  socialAccountDeps,
  type SocialAccountView,
} from '../../../commands/social-accounts/social-account-commands.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import { setSandboxAccountRevoked, type SandboxTables } from '../../../infra/connectors/sandbox/index.js';
import type { Kysely } from 'kysely';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Acme');
  other = await createTestWorkspace(service, 'Other');
});
afterAll(async () => service?.stop());

interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}

const accountsPath = (w: TestWorkspace) => `${w.base}/accounts`;
const accountPath = (w: TestWorkspace, id: string) => `${w.base}/accounts/${id}`;

/** Records an account as the OAuth callbacks do, with tokens the sandbox platform accepts. */
async function connect(
  w: TestWorkspace,
  platform: Platform,
  handle: string,
  options: { externalId?: string; accessToken?: string } = {},
): Promise<SocialAccountView> {
  const runtime = service.runtime;
  const deps = socialAccountDeps({
    commands: runtime.commands,
    readModels: runtime.readModels,
    tokenCipher: runtime.tokenCipher,
    connectors: runtime.connectors,
  });
  const [view] = await connectSocialAccounts(
    deps,
    {
      orgId: w.orgId,
      platform,
      accounts: [
        {
          profile: {
            accountExternalId: options.externalId ?? `${platform}-${handle}-${randomUUID().slice(0, 8)}`,
            accountName: `${handle} name`,
            accountHandle: handle,
            profileImageUrl: null,
            profileUrl: `https://${platform}.example/${handle}`,
            accountBio: null,
            ...(platform === 'x' ? { xSubscription: 'premium_plus' as const } : {}),
          },
          tokens: {
            accessToken: options.accessToken ?? `secret-access-${randomUUID()}`,
            refreshToken: `secret-refresh-${randomUUID()}`,
            expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
            scopes: ['read', 'write'],
          },
        },
      ],
    },
    { orgId: w.orgId, actor: w.userIds.owner, correlationId: randomUUID(), now: new Date().toISOString() },
  );
  return view!;
}

async function list(w: TestWorkspace, token = w.tokens.viewer): Promise<SocialAccountView[]> {
  const res = await service.request('GET', accountsPath(w), { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: SocialAccountView[] }).data;
}

const patch = (w: TestWorkspace, id: string, body: unknown, token = w.tokens.admin, headers = {}) =>
  service.request('PATCH', accountPath(w, id), { token, body, headers });
const del = (w: TestWorkspace, id: string, token = w.tokens.admin, headers = {}) =>
  service.request('DELETE', accountPath(w, id), { token, headers });

describe('GET accounts', () => {
  test('lists the workspace accounts in the spec shape, to every member, without secrets', async () => {
    const fresh = await createTestWorkspace(service, 'Listing');
    expect(await list(fresh)).toEqual([]);
    const x = await connect(fresh, 'x', 'acme_x', { accessToken: 'secret-access-listing' });
    const li = await connect(fresh, 'linkedin', 'acme_li');
    for (const role of ['owner', 'admin', 'reviewer', 'editor', 'viewer'] as const) {
      const accounts = await list(fresh, fresh.tokens[role]);
      expect(accounts.map((a) => a.id)).toEqual([li.id, x.id]);
    }
    const res = await service.request('GET', accountsPath(fresh), { token: fresh.tokens.viewer });
    const text = await res.text();
    expect(text).not.toContain('secret-');
    const [listedLi, listedX] = (JSON.parse(text) as { data: SocialAccountView[] }).data;
    expect(listedX).toEqual({
      id: x.id,
      orgId: fresh.orgId,
      platform: 'x',
      accountExternalId: x.accountExternalId,
      accountName: 'acme_x name',
      accountHandle: 'acme_x',
      status: 'connected',
      scopes: ['read', 'write'],
      tokenExpiresAt: x.tokenExpiresAt,
      lastRefreshedAt: null,
      createdAt: x.createdAt,
      updatedAt: x.createdAt,
      profileImageUrl: null,
      profileUrl: 'https://x.example/acme_x',
      accountBio: null,
      xPremium: true,
      xSubscription: 'premium_plus',
    });
    expect(listedLi).toMatchObject({ platform: 'linkedin', xPremium: null, xSubscription: null });
    // The other workspace sees none of them.
    expect((await list(other)).map((a) => a.id)).not.toContain(x.id);
  });

  test('401 without a token, 403 for another workspace', async () => {
    expect((await service.request('GET', accountsPath(ws))).status).toBe(401);
    expect((await service.request('GET', accountsPath(ws), { token: other.tokens.owner })).status).toBe(403);
  });

  test('reconnecting the same platform account keeps its id and shows the new profile', async () => {
    const first = await connect(ws, 'bluesky', 'same', { externalId: 'did:plc:same' });
    const again = await connect(ws, 'bluesky', 'same-renamed', { externalId: 'did:plc:same' });
    expect(again.id).toBe(first.id);
    const listed = (await list(ws)).filter((a) => a.accountExternalId === 'did:plc:same');
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ accountHandle: 'same-renamed', createdAt: first.createdAt });
  });
});

describe('PATCH account', () => {
  test('owners and admins set the profile URL; null clears it; the list shows it at once', async () => {
    const account = await connect(ws, 'x', 'patched');
    for (const role of ['owner', 'admin'] as const) {
      const url = `https://acme.example/${role}`;
      const res = await patch(ws, account.id, { profileUrl: url }, ws.tokens[role]);
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as { data: SocialAccountView };
      expect(data).toMatchObject({ id: account.id, profileUrl: url, status: 'connected' });
      expect((await list(ws)).find((a) => a.id === account.id)?.profileUrl).toBe(url);
    }
    const cleared = await patch(ws, account.id, { profileUrl: null });
    expect(cleared.status).toBe(200);
    expect(((await cleared.json()) as { data: SocialAccountView }).data.profileUrl).toBeNull();
    expect((await list(ws)).find((a) => a.id === account.id)?.profileUrl).toBeNull();
  });

  test('reviewers, editors and viewers get 403; no token 401; nothing changes', async () => {
    const account = await connect(ws, 'x', 'guarded');
    const before = await eventCount(service);
    for (const role of ['reviewer', 'editor', 'viewer'] as const)
      expect((await patch(ws, account.id, { profileUrl: null }, ws.tokens[role])).status).toBe(403);
    expect(
      (await service.request('PATCH', accountPath(ws, account.id), { body: { profileUrl: null } })).status,
    ).toBe(401);
    expect(await eventCount(service)).toBe(before);
  });

  test('bad bodies are 400 with details and change nothing', async () => {
    const account = await connect(ws, 'x', 'validated');
    const before = await eventCount(service);
    const cases: Array<[unknown, string]> = [
      [{}, 'body.profileUrl'],
      [{ profileUrl: 'not a url' }, 'body.profileUrl'],
      [{ profileUrl: 'javascript:alert(1)' }, 'body.profileUrl'],
      [{ profileUrl: 'ftp://acme.example/x' }, 'body.profileUrl'],
      [{ profileUrl: 42 }, 'body.profileUrl'],
      [{ profileUrl: null, status: 'connected' }, 'body.status'],
    ];
    for (const [body, path] of cases) {
      const res = await patch(ws, account.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = (await res.json()) as ErrorBody;
      expect(error.details?.map((d) => d.path)).toContain(path);
    }
    expect((await patch(ws, 'not-a-uuid', { profileUrl: null })).status).toBe(400);
    expect(await eventCount(service)).toBe(before);
    expect((await list(ws)).find((a) => a.id === account.id)?.profileUrl).toBe('https://x.example/validated');
  });

  test('unknown ids and another workspace’s accounts are 404', async () => {
    const theirs = await connect(other, 'x', 'theirs');
    expect((await patch(ws, randomUUID(), { profileUrl: null })).status).toBe(404);
    const res = await patch(ws, theirs.id, { profileUrl: null });
    expect(res.status).toBe(404);
    expect((await res.json()) as ErrorBody).toEqual({ error: 'Social account not found' });
    expect((await list(other)).find((a) => a.id === theirs.id)?.profileUrl).toBe('https://x.example/theirs');
  });

  test('an Idempotency-Key replay answers the first response', async () => {
    const account = await connect(ws, 'x', 'replayed');
    const key = randomUUID();
    const first = await patch(ws, account.id, { profileUrl: 'https://acme.example/one' }, ws.tokens.admin, {
      'idempotency-key': key,
    });
    expect(first.status).toBe(200);
    const firstBody: unknown = await first.json();
    const before = await eventCount(service);
    const again = await patch(ws, account.id, { profileUrl: 'https://acme.example/one' }, ws.tokens.admin, {
      'idempotency-key': key,
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);
    expect(await eventCount(service)).toBe(before);
    // The same key with another body is refused.
    const reused = await patch(ws, account.id, { profileUrl: null }, ws.tokens.admin, {
      'idempotency-key': key,
    });
    expect(reused.status).toBe(422);
  });
});

describe('DELETE account', () => {
  test('answers the account as it was, then it is gone from the list and its tokens are dropped', async () => {
    const account = await connect(ws, 'x', 'deleted');
    const res = await del(ws, account.id);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: SocialAccountView };
    expect(data).toEqual(account);
    expect((await list(ws)).map((a) => a.id)).not.toContain(account.id);
    const rows = await sql<{
      n: number;
    }>`select count(*)::int as n from social_account_tokens where account_id = ${account.id}`.execute(
      service.runtime.readModels,
    );
    expect(rows.rows[0]?.n).toBe(0);

    // Gone: PATCH and DELETE are 404 now.
    expect((await del(ws, account.id)).status).toBe(404);
    expect((await patch(ws, account.id, { profileUrl: null })).status).toBe(404);
  });

  test('reconnecting a deleted account restores it under the same id', async () => {
    const account = await connect(ws, 'linkedin', 'comeback', { externalId: 'li-comeback' });
    expect((await del(ws, account.id)).status).toBe(200);
    const back = await connect(ws, 'linkedin', 'comeback', { externalId: 'li-comeback' });
    expect(back.id).toBe(account.id);
    expect((await list(ws)).find((a) => a.id === account.id)).toMatchObject({ status: 'connected' });
  });

  test('roles without accounts:manage get 403; another workspace’s account is 404; nothing changes', async () => {
    const account = await connect(ws, 'x', 'kept');
    const theirs = await connect(other, 'x', 'kept-theirs');
    const before = await eventCount(service);
    for (const role of ['reviewer', 'editor', 'viewer'] as const)
      expect((await del(ws, account.id, ws.tokens[role])).status).toBe(403);
    expect((await del(ws, theirs.id)).status).toBe(404);
    expect((await service.request('DELETE', accountPath(ws, account.id))).status).toBe(401);
    expect(await eventCount(service)).toBe(before);
    expect((await list(ws)).map((a) => a.id)).toContain(account.id);
    expect((await list(other)).map((a) => a.id)).toContain(theirs.id);
  });

  test('an Idempotency-Key replay of DELETE answers the stored response instead of 404', async () => {
    const account = await connect(ws, 'x', 'twice');
    const key = randomUUID();
    const first = await del(ws, account.id, ws.tokens.owner, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const again = await del(ws, account.id, ws.tokens.owner, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
  });
});

describe('GET creator-info', () => {
  const creatorInfo = (w: TestWorkspace, id: string, token = w.tokens.viewer) =>
    service.request('GET', `${accountPath(w, id)}/tiktok/creator-info`, { token });

  test('a TikTok account answers what the platform lets the creator post', async () => {
    const account = await connect(ws, 'tiktok', 'creator');
    const res = await creatorInfo(ws, account.id);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    expect(data).toEqual({
      creatorAvatarUrl: null,
      creatorUsername: 'creator',
      creatorNickname: expect.any(String) as unknown,
      privacyLevelOptions: [
        'PUBLIC_TO_EVERYONE',
        'MUTUAL_FOLLOW_FRIENDS',
        'FOLLOWER_OF_CREATOR',
        'SELF_ONLY',
      ],
      commentDisabled: false,
      duetDisabled: false,
      stitchDisabled: true,
      maxVideoPostDurationSec: 600,
      directPostEnabled: true,
    });
  });

  test('another platform’s account is 400 not_a_tiktok_account; unknown or another workspace’s is 404', async () => {
    const x = await connect(ws, 'x', 'not-tiktok');
    const res = await creatorInfo(ws, x.id);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).code).toBe('not_a_tiktok_account');
    expect((await creatorInfo(ws, randomUUID())).status).toBe(404);
    const theirs = await connect(other, 'tiktok', 'their-creator');
    expect((await creatorInfo(ws, theirs.id)).status).toBe(404);
    expect((await service.request('GET', `${accountPath(ws, theirs.id)}/tiktok/creator-info`)).status).toBe(
      401,
    );
  });

  test('access revoked on the platform: 409 account_needs_reconnecting and the account shows error', async () => {
    const account = await connect(ws, 'tiktok', 'revoked-creator');
    await setSandboxAccountRevoked(
      service.runtime.readModels as unknown as Kysely<SandboxTables>,
      'tiktok',
      account.accountExternalId,
      true,
    );
    const res = await creatorInfo(ws, account.id);
    expect(res.status).toBe(409);
    const error = (await res.json()) as ErrorBody;
    expect(error.code).toBe('account_needs_reconnecting');
    expect(error.error).toMatch(/reconnect @revoked-creator/);
    expect(JSON.stringify(error)).not.toContain('secret-');
    expect((await list(ws)).find((a) => a.id === account.id)?.status).toBe('error');
    // Asked again, it says so without another platform round.
    const again = await creatorInfo(ws, account.id);
    expect(again.status).toBe(409);
  });
});

describe('OpenAPI', () => {
  test('documents the four account endpoints', async () => {
    const res = await service.request('GET', '/v1/openapi.json');
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/v1/orgs/{orgId}/marketing/accounts'] ?? {})).toContain('get');
    expect(Object.keys(doc.paths['/v1/orgs/{orgId}/marketing/accounts/{accountId}'] ?? {}).sort()).toEqual([
      'delete',
      'patch',
    ]);
    expect(
      doc.paths['/v1/orgs/{orgId}/marketing/accounts/{accountId}/tiktok/creator-info']?.get,
    ).toBeDefined();
  });
});
