// What happens to posts whose account goes away (docs/decisions.md "Accounts removed or disconnected"):
// deleting the account takes its unsent posts off it (scheduled ones back to approved, lastError says why);
// a disconnected or failing account keeps its posts scheduled, and they fail at their time naming the fix.
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  disconnectSocialAccount,
  socialAccountDeps,
} from '../../../commands/social-accounts/social-account-commands.js';
import { sandboxPublicationsOf } from '../../../infra/connectors/sandbox/index.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService({ env: { PUBLISH_SWEEP_INTERVAL_MS: '30' } });
  ws = await createTestWorkspace(service);
});
afterAll(async () => service?.stop());

async function getPost(postId: string): Promise<PostView> {
  const res = await service.request('GET', `${ws.base}/posts?limit=100`, { token: ws.tokens.owner });
  return ((await res.json()) as { data: { items: PostView[] } }).data.items.find((p) => p.id === postId)!;
}

async function scheduledGroup(socialAccountId: string, at: Date, extra: object[] = []) {
  const created = await service.request('POST', `${ws.base}/post-groups`, {
    token: ws.tokens.owner,
    body: {
      title: 'Planned',
      posts: [{ platform: 'x', contentText: `Planned ${Math.random()}`, socialAccountId }, ...extra],
    },
  });
  const data = ((await created.json()) as { data: { group: { id: string }; posts: PostView[] } }).data;
  const approved = await service.request('POST', `${ws.base}/post-groups/${data.group.id}/approve`, {
    token: ws.tokens.owner,
    body: { scheduledForUtc: at.toISOString() },
  });
  expect(approved.status).toBe(200);
  return data.posts.map((p) => p.id);
}

test('deleting an account: its scheduled posts go back to approved without it, saying why; others stay', async () => {
  const account = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x', {
    account: 'to_delete',
  });
  const [postId, linkedinPostId] = await scheduledGroup(account.id, new Date(Date.now() + 3_600_000), [
    { platform: 'linkedin', contentText: 'Other account' },
  ]);
  const res = await service.request('DELETE', `${ws.base}/accounts/${account.id}`, {
    token: ws.tokens.owner,
  });
  expect(res.status).toBe(200);
  const detached = (await waitUntil(async () => {
    const p = await getPost(postId!);
    return p.socialAccountId === null ? p : null;
  }))!;
  expect(detached.status).toBe('approved');
  expect(detached.scheduledForUtc).toBeNull();
  expect(detached.lastError).toMatch(/@to_delete was removed/);
  const other = await getPost(linkedinPostId!);
  expect(other.status).toBe('scheduled');
  expect(other.lastError).toBeNull();
});

test('a disconnected account: the post stays scheduled and fails at its time naming the account, nothing sent', async () => {
  const account = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x', {
    account: 'gone_quiet',
  });
  const [postId] = await scheduledGroup(account.id, new Date(Date.now() + 1500));
  await disconnectSocialAccount(
    socialAccountDeps({ ...service.runtime, tokenCipher: service.runtime.tokenCipher }),
    ws.orgId,
    account.id,
    'revoked on the platform',
    { orgId: ws.orgId, actor: 'system', correlationId: 'test', now: new Date().toISOString() },
  );
  expect((await getPost(postId!)).status).toBe('scheduled');
  const failed = (await waitUntil(async () => {
    const p = await getPost(postId!);
    return p.status === 'failed' ? p : null;
  }))!;
  expect(failed.lastError).toMatch(/gone_quiet/);
  expect(failed.lastError).toMatch(/reconnect/i);
  expect(await sandboxPublicationsOf(service.runtime.readModels, postId!)).toHaveLength(0);
});
