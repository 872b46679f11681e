// What a platform says when it refuses a post reaches the post's lastError (and the log) capped at 500
// characters, on one line, and without anything that looks like a token.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Publisher } from '../../../processes/publishing/publisher.js';
import { recordPublishOutcome, startPublishAttempt } from '../../../commands/publishing/publish-commands.js';
import { ConnectorError, type PlatformConnector } from '../../../infra/connectors/port.js';
import { createLogger } from '../../../infra/logging/logger.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';

const secret = 'AAAAplatform-access-token-value-0123456789';
const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLWJ5dGVz';
const platformText = `Refused {"access_token":"${secret}"}\r\n\u001b[31m${jwt}\u0000 ${'detail '.repeat(400)}`;

let service: TestService;
let ws: TestWorkspace;
let accountId: string;
const logLines: string[] = [];

beforeAll(async () => {
  service = await startTestService({
    publishing: { sweep: false, work: false },
    env: { POST_NOW_WAIT_MS: '0' },
  });
  ws = await createTestWorkspace(service);
  accountId = (await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x')).id;
}, 60_000);
afterAll(async () => service?.stop());

async function postNow(): Promise<{ orgId: string; groupId: string; postId: string }> {
  const created = await service.request('POST', `${ws.base}/post-groups`, {
    token: ws.tokens.owner,
    body: {
      title: 'Errors',
      posts: [{ platform: 'x', contentText: `Hello ${randomUUID()}`, socialAccountId: accountId }],
    },
  });
  expect(created.status).toBe(200);
  const data = ((await created.json()) as { data: { group: { id: string }; posts: PostView[] } }).data;
  const postId = data.posts[0]!.id;
  await service.request('POST', `${ws.base}/post-groups/${data.group.id}/approve`, {
    token: ws.tokens.owner,
    body: { autoSchedule: false },
  });
  const res = await service.request('POST', `${ws.base}/posts/${postId}/post-now`, {
    token: ws.tokens.owner,
  });
  expect(res.status).toBe(200);
  return { orgId: ws.orgId, groupId: data.group.id, postId };
}

async function failedPost(postId: string): Promise<PostView> {
  return (await waitUntil(async () => {
    const res = await service.request('GET', `${ws.base}/posts?limit=100`, { token: ws.tokens.owner });
    const post = ((await res.json()) as { data: { items: PostView[] } }).data.items.find(
      (p) => p.id === postId,
    );
    return post?.status === 'failed' ? post : null;
  }))!;
}

function expectClean(text: string): void {
  expect(text.length).toBeLessThanOrEqual(500);
  expect(text).not.toContain(secret);
  expect(text).not.toContain(jwt);
  // eslint-disable-next-line no-control-regex
  expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
}

test('a platform refusal: lastError and the log line are capped, one line, tokens redacted', async () => {
  // A connector whose platform refuses with a long, noisy answer echoing the token.
  const connector = {
    platform: 'x',
    publish: () => Promise.reject(new ConnectorError('permanent', platformText, { status: 400 })),
  } as Pick<PlatformConnector, 'platform' | 'publish'> as PlatformConnector;
  const publisher = new Publisher({
    commands: service.runtime.commands,
    connectors: { get: () => connector },
    accounts: service.runtime.accounts,
    fetchMedia: () => Promise.reject(new Error('no media')),
    settings: {
      maxAttempts: 1,
      retryBaseMs: 1000,
      retryMaxMs: 1000,
      callTimeoutMs: 10_000,
      staleAttemptMs: 60_000,
      pollIntervalMs: 1000,
      pendingTimeoutMs: 60_000,
    },
    logger: createLogger({ level: 'debug', destination: { write: (line: string) => logLines.push(line) } }),
  });
  const job = await postNow();
  await publisher.run(job);
  const post = await failedPost(job.postId);
  expectClean(post.lastError!);
  expect(post.lastError).toMatch(/^Refused/);
  const warning = logLines.map((l) => JSON.parse(l) as { msg: string; error?: string }).find((l) => l.error);
  expectClean(warning!.error!);
});

test('recordPublishOutcome cleans whatever error text it is given', async () => {
  const job = await postNow();
  const claim = await startPublishAttempt(
    service.runtime.commands,
    { ...job, socialAccountId: accountId },
    new Date(),
  );
  await recordPublishOutcome(
    service.runtime.commands,
    { ...job, attempt: claim.attempt },
    { kind: 'failed', error: platformText, reason: 'permanent', nextRetryAt: null },
    new Date(),
  );
  const post = await failedPost(job.postId);
  expectClean(post.lastError!);
});
