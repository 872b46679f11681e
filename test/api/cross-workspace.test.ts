// "Another workspace's ids answered 404 everywhere": workspace B holds one real resource of every kind an
// endpoint names by id (tag, post group, post, social account, …); A's owner calls every such endpoint of A's
// own workspace path with B's ids, with a body that would be valid, and gets 404 each time, and B is unchanged.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { billingCommand } from '../../api/cli/billing.js';
import { randomUUID } from 'node:crypto';
import { recordMediaFixtures } from '../support/media.js';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { memberIdOf } from '../../domain/workspaces/views.js';
import { candidate, installFakeEngagement } from '../support/fake-engagement.js';
import { sandboxNotionPages } from '../../infra/notion/sandbox.js';
import { connectSandboxNotion } from '../support/context.js';
import { connectSandboxAccount } from '../support/social-accounts.js';
import { waitUntil } from '../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

/** A body that passes validation for each operation that takes one (keyed `METHOD /path`). */
const bodies: Record<string, unknown> = {
  'PATCH /v1/orgs/{orgId}/marketing/tags/{tagId}': { name: 'Renamed' },
  'PATCH /v1/orgs/{orgId}/marketing/post-groups/{groupId}': { title: 'Renamed' },
  'POST /v1/orgs/{orgId}/marketing/post-groups/{groupId}/approve': {},
  'POST /v1/orgs/{orgId}/marketing/post-groups/{groupId}/reject': {},
  'POST /v1/orgs/{orgId}/marketing/post-groups/{groupId}/schedule': { useBestSlot: true },
  'PATCH /v1/orgs/{orgId}/marketing/posts/{postId}': { contentText: 'Changed' },
  'PATCH /v1/orgs/{orgId}/marketing/accounts/{accountId}': { profileUrl: null },
  'PATCH /v1/orgs/{orgId}/members/{memberId}': { status: 'suspended' },
  'POST /v1/orgs/{orgId}/marketing/media/{assetId}/complete': {
    key: 'orgs/any/media/any.png',
    kind: 'image',
    contentType: 'image/png',
  },
  'POST /v1/orgs/{orgId}/strategy/recommendations/{recommendationId}': { decision: 'accepted' },
  'PATCH /v1/orgs/{orgId}/thoughts/{thoughtId}': { text: 'Changed' },
  'POST /v1/orgs/{orgId}/thoughts/{thoughtId}/drafts': {},
  'POST /v1/orgs/{orgId}/marketing/posts/{postId}/rewrite': { guidance: 'shorter' },
  'PATCH /v1/orgs/{orgId}/launch-kits/{kitId}': { stepId: 'step-1', done: true },
  'PATCH /v1/orgs/{orgId}/dms/{conversationId}': { notes: 'Changed' },
  'POST /v1/orgs/{orgId}/dms/{conversationId}/draft': {},
  'PATCH /v1/orgs/{orgId}/engagement/{itemId}': { status: 'dismissed' },
  'POST /v1/orgs/{orgId}/engagement/{itemId}/draft': {},
  'POST /v1/orgs/{orgId}/engagement/{itemId}/send': { text: 'Hi' },
  'PATCH /v1/orgs/{orgId}/context/documents/{documentId}': { enabled: false },
  'POST /v1/orgs/{orgId}/context/sources/{sourceId}/sync': { pageIds: [sandboxNotionPages[0]!.id] },
  'PATCH /v1/orgs/{orgId}/inspiration/{itemId}': { tags: ['changed'] },
  'POST /v1/orgs/{orgId}/inspiration/{itemId}/opportunity': { status: 'saved' },
  'POST /v1/orgs/{orgId}/inspiration/{itemId}/drafts': {},
};

async function json<T>(res: Response): Promise<T> {
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return ((await res.json()) as { data: T }).data;
}

describe('ids of another workspace', () => {
  let a: TestWorkspace;
  let b: TestWorkspace;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    a = await createTestWorkspace(service, 'A');
    b = await createTestWorkspace(service, 'B');
    const owner = b.tokens.owner;
    const tag = await json<{ id: string }>(
      await service.request('POST', `${b.base}/tags`, { token: owner, body: { name: 'B tag' } }),
    );
    ids.tagId = tag.id;
    const account = await connectSandboxAccount(service, { orgId: b.orgId, userId: b.userIds.owner }, 'x');
    ids.accountId = account.id;
    const created = await json<{ group: { id: string }; posts: { id: string }[] }>(
      await service.request('POST', `${b.base}/post-groups`, {
        token: owner,
        body: {
          title: 'B group',
          posts: [{ platform: 'x', contentText: 'In B', socialAccountId: account.id }],
        },
      }),
    );
    ids.groupId = created.group.id;
    ids.postId = created.posts[0]!.id;
    const invitation = await json<{ id: string }>(
      await service.request('POST', `/v1/orgs/${b.orgId}/invitations`, {
        token: owner,
        body: { email: 'invited-to-b@example.org', roleKey: 'viewer' },
      }),
    );
    ids.invitationId = invitation.id;
    // A thought, a launch kit and a tracked DM conversation of B.
    ids.thoughtId = (
      await json<{ id: string }>(
        await service.request('POST', `/v1/orgs/${b.orgId}/thoughts`, {
          token: owner,
          body: { text: 'A thought of B' },
        }),
      )
    ).id;
    ids.kitId = (
      await json<{ kit: { id: string } }>(
        await service.request('POST', `/v1/orgs/${b.orgId}/launch-kits`, {
          token: owner,
          body: { pitch: 'B launches a thing', launchDate: '2027-03-30', channels: ['x'] },
        }),
      )
    ).kit.id;
    ids.conversationId = (
      await json<{ id: string }>(
        await service.request('POST', `/v1/orgs/${b.orgId}/dms`, {
          token: owner,
          body: { handle: 'someone_in_b', messages: [{ from: 'them', text: 'Hi' }] },
        }),
      )
    ).id;
    // An item of B's reply inbox (found by a refresh through a fake of the connector's reads).
    const fake = installFakeEngagement(service);
    fake.posts = { x_mentions: [candidate({ text: '@b a question for B?' })] };
    ids.itemId = (
      await json<{ items: { id: string }[] }>(
        await service.request('POST', `/v1/orgs/${b.orgId}/engagement/refresh`, { token: owner, body: {} }),
      )
    ).items[0]!.id;
    fake.posts = {};
    // A context source of B (the sandbox Notion) and a document synced from it.
    const notion = await connectSandboxNotion(service, b);
    ids.sourceId = notion.source.id;
    ids.documentId = (
      await json<{ synced: { id: string }[] }>(
        await service.request('POST', `/v1/orgs/${b.orgId}/context/sources/${notion.source.id}/sync`, {
          token: owner,
          body: { pageIds: [sandboxNotionPages[0]!.id] },
        }),
      )
    ).synced[0]!.id;
    // An item of B's inspiration library (named `itemId` too: ids under /inspiration/ take `inspiration.itemId`).
    ids['inspiration.itemId'] = (
      await json<{ id: string }>(
        await service.request('POST', `/v1/orgs/${b.orgId}/inspiration`, {
          token: owner,
          body: { contentText: 'A post B saved for inspiration', platform: 'x' },
        }),
      )
    ).id;
    // Both have a strategy with recommendations (the offline writer's): B's ids under A are unknown there.
    for (const ws of [a, b])
      await json(
        await service.request('POST', `/v1/orgs/${ws.orgId}/strategy/generate`, {
          token: ws.tokens.owner,
          body: {},
        }),
      );
    const strategy = await json<{ recommendations: { id: string }[] }>(
      await service.request('GET', `/v1/orgs/${b.orgId}/strategy`, { token: owner }),
    );
    ids.recommendationId = strategy.recommendations[0]!.id;
    // B's strategy was written as an agent run: its steps are B's.
    const runs = await json<{ items: { id: string }[] }>(
      await service.request('GET', `/v1/orgs/${b.orgId}/agent-runs`, { token: owner }),
    );
    ids.runId = runs.items[0]!.id;
    ids.memberId = memberIdOf(b.orgId, b.userIds.editor);
    // An asset of B's media library.
    ids.assetId = randomUUID();
    await recordMediaFixtures(service, b.orgId, {
      kind: 'image',
      assetId: ids.assetId,
      url: 'https://cdn.example.org/b.png',
      contentType: 'image/png',
      sizeBytes: 10,
    });
    // A draft waits for approval: B's admin is notified.
    await json(
      await service.request('POST', `${b.base}/drafts`, {
        token: b.tokens.editor,
        body: { title: 'B draft', posts: [{ platform: 'x', contentText: 'Draft in B' }] },
      }),
    );
    const notification = await waitUntil(async () => {
      const res = await service.request('GET', `/v1/orgs/${b.orgId}/notifications?unreadOnly=false`, {
        token: b.tokens.admin,
      });
      const page = await json<{ items: { id: string }[] }>(res);
      return page.items[0];
    });
    ids.notificationId = notification!.id;
    // B subscribes (sandbox checkout paid): its first billing transaction.
    const { slug } = await service.runtime.readModels
      .selectFrom('workspaces')
      .select('slug')
      .where('id', '=', b.orgId)
      .executeTakeFirstOrThrow();
    const simulated = await billingCommand(['simulate', 'paid', '--workspace', slug], {
      db: service.runtime.database.db,
      commands: service.runtime.commands,
      env: service.runtime.env,
      publicBaseUrl: 'http://localhost:3000',
      tokenCipher: service.runtime.tokenCipher,
      out: () => {},
    });
    expect(simulated).toBe(0);
    const transaction = await waitUntil(async () => {
      const res = await service.request('GET', `/v1/orgs/${b.orgId}/billing/transactions`, { token: owner });
      const page = await json<{ data: { id: string }[] }>(res);
      return page.data[0];
    });
    ids.transactionId = transaction!.id;
    // The paid period's credits are opened right after (api/billing): counted before the requests.
    await waitUntil(async () => {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from credit_transactions where org_id = ${b.orgId} and type = 'grant'`.execute(
        service.runtime.readModels,
      );
      return rows[0]!.n >= 2;
    });
  });

  test('every endpoint that names a resource by id answers 404 for B ids under A, changing nothing', async () => {
    const doc = (await (await service.request('GET', '/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    const before = await eventCount(service);
    const answers: string[] = [];
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/orgs/{orgId}/')) continue;
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((p) => p !== 'orgId');
      if (params.length === 0 || params.every((p) => p === 'platform')) continue;
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} ${path}`;
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
          if (name === 'orgId') return a.orgId;
          const id = ids[`${path.split('/')[4]}.${name}`] ?? ids[name];
          if (id === undefined) throw new Error(`no resource of workspace B for {${name}} (${key}): add one`);
          return id;
        });
        if (op.requestBody !== undefined && !(key in bodies))
          throw new Error(`no valid body for ${key}: add one`);
        const res = await service.request(method.toUpperCase(), url, {
          token: a.tokens.owner,
          ...(op.requestBody !== undefined ? { body: bodies[key] } : {}),
        });
        answers.push(`${key}: ${res.status}`);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(answers).toEqual(answers.map((a) => a.replace(/\d+$/, '404')));
    expect(await eventCount(service)).toBe(before);
  });
});
