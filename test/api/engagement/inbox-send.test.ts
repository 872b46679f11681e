// POST ORG/engagement/{itemId}/send through the whole service with a fake of the connectors' reply methods
// (test/support/fake-engagement.ts): sent once with exactly the approved text; a text other than the draft, a
// community post, a dismissed item refused before any platform call; a permanent failure → failed; an unknown
// outcome checked before anything else (found → sent once; not found → failed, the next send checks first); two
// concurrent sends → one platform call; a claim left by a crashed send taken over after its lease, checking first;
// posts:publish (reviewers yes, editors no).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inboxItemStream } from '../../../commands/engagement/inbox.js';
import { handleCommand } from '../../../commands/shared/command-handler.js';
import { inboxItemDecider, inboxLimits } from '../../../domain/engagement/inbox-item.js';
import { candidate, installFakeEngagement, type FakeEngagement } from '../../support/fake-engagement.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
let fake: FakeEngagement;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  fake = installFakeEngagement(service);
  ws = await createTestWorkspace(service);
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'reddit');
}, 120_000);
afterAll(async () => service?.stop());

async function call(
  method: string,
  rest: string,
  body?: unknown,
  role: keyof TestWorkspace['tokens'] = 'owner',
) {
  const res = await service.request(method, `/v1/orgs/${ws.orgId}/engagement${rest}`, {
    token: ws.tokens[role],
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, json: (await res.json()) as Loose };
}
const data = (res: { status: number; json: Loose }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json.data as Loose;
};

/** A new inbox item of a post found by a refresh. */
async function newItem(changes: Parameters<typeof candidate>[0] = {}): Promise<Loose> {
  const post = candidate(changes);
  fake.posts = { [post.platform === 'reddit' ? 'reddit_search' : 'x_mentions']: [post] };
  if (post.platform === 'reddit') data(await call('PATCH', '/settings', { redditKeywords: ['scheduler'] }));
  const r = data(await call('POST', '/refresh', {}));
  fake.posts = {};
  return (r.items as Loose[]).find((i) => i.externalPostId === post.externalId)!;
}
const resetSends = () => {
  fake.sends = [];
  fake.finds = [];
  fake.sendBehaviour = 'ok';
  fake.sendDelayMs = 0;
};

describe('send', () => {
  test('sends exactly the approved draft once; again answers the sent item, calling nothing', async () => {
    resetSends();
    const item = await newItem();
    data(await call('PATCH', `/${item.id}`, { draftText: 'We do! Threads are scheduled natively.' }));
    expect((await call('POST', `/${item.id}/send`, { text: 'We do!' })).json.code).toBe(
      'reply_text_mismatch',
    );
    const sent = data(
      await call('POST', `/${item.id}/send`, { text: 'We do! Threads are scheduled natively.' }, 'reviewer'),
    );
    expect(sent).toMatchObject({
      status: 'sent',
      sentUrl: 'https://example.test/x/reply-1',
      lastError: null,
    });
    expect(fake.sends).toEqual([
      {
        platform: 'x',
        reply: { inReplyTo: item.externalPostId, text: 'We do! Threads are scheduled natively.' },
      },
    ]);
    expect(
      data(await call('POST', `/${item.id}/send`, { text: 'We do! Threads are scheduled natively.' })).status,
    ).toBe('sent');
    expect((await call('POST', `/${item.id}/send`, { text: 'Other' })).status).toBe(409);
    expect(fake.sends).toHaveLength(1);
    expect((data(await call('GET', '?status=sent')).items as Loose[]).map((i) => String(i.id))).toContain(
      item.id,
    );
  });

  test('a Reddit thread is answered by a comment; with no draft the text given is sent', async () => {
    resetSends();
    const item = await newItem({ platform: 'reddit', externalId: 't3_send1', title: 'scheduler?' });
    const sent = data(await call('POST', `/${item.id}/send`, { text: 'Happy to help here.' }));
    expect(sent.status).toBe('sent');
    expect(fake.sends).toEqual([
      { platform: 'reddit', reply: { inReplyTo: 't3_send1', text: 'Happy to help here.' } },
    ]);
  });

  test('community posts: 409 with a clear code, nothing called; dismissed items refused', async () => {
    resetSends();
    const community = await newItem({ kind: 'community', community: 'Builders' });
    const refused = await call('POST', `/${community.id}/send`, { text: 'Hi' });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('x_community_reply_unsupported');
    const item = await newItem();
    data(await call('PATCH', `/${item.id}`, { status: 'dismissed' }));
    expect((await call('POST', `/${item.id}/send`, { text: 'Hi' })).json.code).toBe('inbox_item_dismissed');
    expect(fake.sends).toEqual([]);
  });

  test('a permanent failure makes the item failed with lastError; sending again may succeed', async () => {
    resetSends();
    const item = await newItem();
    fake.sendBehaviour = 'permanent';
    const failed = data(await call('POST', `/${item.id}/send`, { text: 'Hello there' }));
    expect(failed).toMatchObject({ status: 'failed', lastError: 'duplicate content' });
    expect((data(await call('GET', '')).items as Loose[]).map((i) => String(i.id))).toContain(item.id);
    fake.sendBehaviour = 'ok';
    expect(data(await call('POST', `/${item.id}/send`, { text: 'Hello there' })).status).toBe('sent');
    expect(fake.sends).toHaveLength(2);
    expect(fake.finds).toEqual([]);
  });

  test('an unknown outcome is checked: found → sent, one platform send', async () => {
    resetSends();
    const item = await newItem();
    fake.sendBehaviour = 'unknown_posted';
    const sent = data(await call('POST', `/${item.id}/send`, { text: 'Posted but lost' }));
    expect(sent.status).toBe('sent');
    expect(fake.sends).toHaveLength(1);
    expect(fake.finds).toHaveLength(1);
  });

  test('an unknown outcome not found → failed; the next send checks before sending', async () => {
    resetSends();
    const item = await newItem();
    fake.sendBehaviour = 'unknown_not_posted';
    const failed = data(await call('POST', `/${item.id}/send`, { text: 'Maybe posted' }));
    expect(failed.status).toBe('failed');
    expect(failed.lastError).toMatch(/did not answer/);
    // It was posted after all (the platform was slow): the retry finds it and sends nothing.
    fake.posted.push({
      inReplyTo: item.externalPostId,
      text: 'Maybe posted',
      externalId: 'late',
      url: 'https://example.test/late',
    });
    fake.sendBehaviour = 'ok';
    const sent = data(await call('POST', `/${item.id}/send`, { text: 'Maybe posted' }));
    expect(sent).toMatchObject({ status: 'sent', sentUrl: 'https://example.test/late' });
    expect(fake.sends).toHaveLength(1);
    expect(fake.finds).toHaveLength(2);
  });

  test('two concurrent sends: one platform call; the other is told a send is under way', async () => {
    resetSends();
    const item = await newItem();
    fake.sendDelayMs = 300;
    const [a, b] = await Promise.all([
      call('POST', `/${item.id}/send`, { text: 'Only once' }),
      call('POST', `/${item.id}/send`, { text: 'Only once' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect([a, b].find((r) => r.status === 409)!.json.code).toBe('reply_sending');
    expect(fake.sends).toHaveLength(1);
  });

  test('a claim left by a crashed send is taken over after its lease, checking first', async () => {
    resetSends();
    const item = await newItem();
    const claimedAt = new Date(Date.now() - inboxLimits.sendLeaseMs - 1000).toISOString();
    // The crashed send: its claim recorded, the platform maybe called.
    await handleCommand(service.runtime.commands, {
      stream: inboxItemStream(item.id),
      decider: inboxItemDecider,
      command: {
        type: 'StartReplySend',
        orgId: ws.orgId,
        itemId: item.id,
        attemptId: randomUUID(),
        text: 'Crashed',
        by: null,
        now: claimedAt,
      },
      metadata: {
        orgId: ws.orgId,
        actor: 'system',
        correlationId: randomUUID(),
        causationId: null,
        now: claimedAt,
      },
    });
    expect(
      (data(await call('GET', `?status=sent`)).items as Loose[]).find((i) => i.id === item.id)!.status,
    ).toBe('sending');
    // Another text may not take it over; the same text does.
    expect((await call('POST', `/${item.id}/send`, { text: 'Other' })).json.code).toBe('reply_text_mismatch');
    fake.posted.push({
      inReplyTo: item.externalPostId,
      text: 'Crashed',
      externalId: 'c1',
      url: 'https://example.test/c1',
    });
    const sent = data(await call('POST', `/${item.id}/send`, { text: 'Crashed' }));
    expect(sent).toMatchObject({ status: 'sent', sentUrl: 'https://example.test/c1' });
    expect(fake.finds).toHaveLength(1);
    expect(fake.sends).toEqual([]);
  });

  test('a young claim refuses a send (409 reply_sending) without calling the platform', async () => {
    resetSends();
    const item = await newItem();
    const now = new Date().toISOString();
    await handleCommand(service.runtime.commands, {
      stream: inboxItemStream(item.id),
      decider: inboxItemDecider,
      command: {
        type: 'StartReplySend',
        orgId: ws.orgId,
        itemId: item.id,
        attemptId: randomUUID(),
        text: 'Busy',
        by: null,
        now,
      },
      metadata: { orgId: ws.orgId, actor: 'system', correlationId: randomUUID(), causationId: null, now },
    });
    expect((await call('POST', `/${item.id}/send`, { text: 'Busy' })).json.code).toBe('reply_sending');
    expect(fake.sends).toEqual([]);
    expect(fake.finds).toEqual([]);
  });

  test('posts:publish: editors may not send; an unknown item is 404', async () => {
    const item = await newItem();
    expect((await call('POST', `/${item.id}/send`, { text: 'Hi' }, 'editor')).status).toBe(403);
    expect((await call('POST', `/${randomUUID()}/send`, { text: 'Hi' })).status).toBe(404);
  });
});
