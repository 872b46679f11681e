// The reply inbox against the sandbox connectors (the embedded default), with nothing faked: a refresh finds X
// mentions, keyword matches and Reddit threads (the sandbox's deterministic timelines), a second refresh adds nothing
// already there, and an X mention drafted in the brand voice and sent is answered once: the sandbox holds exactly
// one reply with the approved text, and a repeated send answers the item as sent and posts nothing more.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Sandbox inbox');
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'reddit');
}, 120_000);
afterAll(async () => service?.stop());

async function call(method: string, rest: string, body?: unknown): Promise<Loose> {
  const res = await service.request(method, `/v1/orgs/${ws.orgId}/engagement${rest}`, {
    token: ws.tokens.owner,
    ...(body !== undefined ? { body } : {}),
  });
  const json = (await res.json()) as Loose;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data as Loose;
}

test('refresh through the sandbox, de-duplicated; a mention drafted and sent once', async () => {
  await call('PATCH', '/settings', {
    keywords: ['scheduling'],
    redditKeywords: ['social media scheduler'],
    subreddits: ['SaaS'],
  });
  const first = await call('POST', '/refresh', {});
  expect(first.added).toBeGreaterThan(0);
  expect(first.mentionsFound).toBeGreaterThan(0);
  expect(first.redditFound).toBeGreaterThan(0);
  const platforms = new Set((first.items as Loose[]).map((i) => String(i.platform)));
  expect(platforms).toEqual(new Set(['x', 'reddit']));
  for (const item of first.items as Loose[]) {
    expect(item.status).toBe('new');
    expect(item.replyOnXUrl).toEqual(expect.any(String));
  }

  // The same timelines again: nothing new is added, nothing found twice.
  const again = await call('POST', '/refresh', {});
  const listed = await call('GET', '?status=all&limit=100');
  const ids = (listed.items as Loose[]).map((i) => i.externalPostId as string);
  expect(new Set(ids).size).toBe(ids.length);
  expect(listed.total).toBe(first.added + again.added);

  const mention = (listed.items as Loose[]).find((i) => i.platform === 'x' && i.kind === 'mention')!;
  expect(mention).toBeDefined();
  const drafted = await call('POST', `/${mention.id}/draft`, {});
  expect(drafted.status).toBe('drafted');
  expect(drafted.draftText).toEqual(expect.any(String));
  const sent = await call('POST', `/${mention.id}/send`, { text: drafted.draftText });
  expect(sent.status).toBe('sent');
  expect(sent.sentUrl).toEqual(expect.any(String));

  // A second send of the same text answers the item as sent and posts nothing more.
  const resent = await call('POST', `/${mention.id}/send`, { text: drafted.draftText });
  expect(resent).toMatchObject({ status: 'sent', sentUrl: sent.sentUrl });
  // The sandbox holds exactly one reply to that post, with exactly the approved text.
  const { rows } = await service.runtime.database.pool.query<{ text: string }>(
    'select text from sandbox_publications where post_id = $1',
    [`engagement-reply:${mention.externalPostId}`],
  );
  expect(rows).toEqual([{ text: drafted.draftText }]);
});
