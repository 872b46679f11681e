// 402 enforcement in one place (issue 14 item 4), through the whole service: an overdue workspace is read-only
// (every write 402 `subscription_overdue_read_only` and nothing recorded, reads work; billing, one's own
// notifications, leaving and deleting the workspace stay writable) until it is paid, and the next write after
// the recovery works; the grace period's end makes it read-only without waiting for the restricting event; a
// workspace whose trial was canceled gets 402 `subscription_required` on paid actions (post-now, schedule,
// approve that schedules) and keeps its other writes; assistants' write tools meet the same policy; the
// publishing sweep holds the due posts of a read-only workspace (still scheduled, not failed) and publishes them
// once it is paid. Also the policy's table of requests, and its cache dropped across instances by the
// projection's notification.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { operations as declared } from '../../../api/slices.js';
import { billingKindOf } from '../../../api/shared/operation-adapters.js';
import { BillingAccess } from '../../../commands/billing/access.js';
import type { Caller } from '../../../domain/shared/caller.js';
import {
  applyNotice,
  restrictAccess,
  type SubscriptionCommandDeps,
} from '../../../commands/billing/subscription-commands.js';
import type { SubscriptionNotice, TransactionNotice } from '../../../domain/billing/provider-events.js';
import { accessOf, initialSubscriptionState } from '../../../domain/billing/subscription.js';
import { mayPublishSql } from '../../../projections/billing/subscriptions-projection.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import { memberIdOf } from '../../../domain/workspaces/views.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { sandboxPublicationsOf } from '../../../infra/connectors/sandbox/index.js';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';
import { billingSettled, createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let deps: SubscriptionCommandDeps;

beforeAll(async () => {
  service = await startTestService();
  deps = {
    commands: service.runtime.commands,
    catalog: new BillingCatalog(loadBillingConfig(defaultBillingConfigFile)),
    now: () => new Date(),
  };
});
afterAll(async () => service.stop());

// ---- The provider's side, as its webhooks would tell it (the subscription's own use case applies them) ----

let sequence = 0;
const eventId = () => `evt_overdue_${randomUUID()}_${(sequence += 1)}`;

async function activate(orgId: string, d: SubscriptionCommandDeps = deps): Promise<void> {
  const now = new Date();
  const notice: SubscriptionNotice = {
    kind: 'subscription',
    provider: 'sandbox',
    eventId: eventId(),
    occurredAt: now.toISOString(),
    orgId,
    status: 'active',
    providerCustomerId: `ctm_${orgId}`,
    providerSubscriptionId: `sub_${orgId}`,
    priceId: 'pri_pro_monthly',
    currentPeriodStart: now.toISOString(),
    currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000).toISOString(),
    cancelAtPeriodEnd: false,
    pauseAtPeriodEnd: false,
  };
  await applyNotice(d, notice);
  // The paid period's credits open right after (a process manager): settled before events are counted.
  if (d === deps) await billingSettled(service, orgId, 2);
}

function renewal(orgId: string, status: 'failed' | 'completed', occurredAt = new Date()): TransactionNotice {
  return {
    kind: 'transaction',
    provider: 'sandbox',
    eventId: eventId(),
    occurredAt: occurredAt.toISOString(),
    orgId,
    transactionId: `txn_${randomUUID()}`,
    type: 'renewal',
    status,
    amount: 4900,
    currency: 'USD',
    priceId: 'pri_pro_monthly',
    invoiceId: null,
    invoiceNumber: null,
    invoiceUrl: null,
    paidAt: status === 'completed' ? occurredAt.toISOString() : null,
    createdAt: occurredAt.toISOString(),
  };
}

/** `billing simulate past-due`: the renewal fails, then the grace is cut short (read-only at once). */
async function simulatePastDue(orgId: string, d: SubscriptionCommandDeps = deps): Promise<void> {
  await applyNotice(d, renewal(orgId, 'failed'));
  await restrictAccess(d, orgId, { force: true });
}

/** `billing simulate recovered`: the renewal goes through. */
async function simulateRecovered(orgId: string, d: SubscriptionCommandDeps = deps): Promise<void> {
  await applyNotice(d, renewal(orgId, 'completed'));
}

// ---- Helpers ----

const org = (ws: TestWorkspace) => `/v1/orgs/${ws.orgId}`;

async function expect402(res: Response, code: string): Promise<void> {
  expect(res.status).toBe(402);
  const body = (await res.json()) as { error: string; code: string };
  expect(body.code).toBe(code);
  expect(body.error).toEqual(expect.any(String));
}

const createTag = (ws: TestWorkspace, token = ws.tokens.editor) =>
  service.request('POST', `${ws.base}/tags`, { token, body: { name: `tag ${randomUUID().slice(0, 8)}` } });

describe('an overdue workspace is read-only until paid', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createTestWorkspace(service, 'Overdue');
    await activate(ws.orgId);
  });

  test('simulate past-due: a write is a 402 and records nothing; reads work', async () => {
    expect((await createTag(ws)).status).toBe(200);
    await simulatePastDue(ws.orgId);

    const before = await eventCount(service);
    await expect402(await createTag(ws), 'subscription_overdue_read_only');
    await expect402(
      await service.request('PATCH', `${org(ws)}/timezone`, {
        token: ws.tokens.owner,
        body: { timezone: 'Europe/Paris' },
      }),
      'subscription_overdue_read_only',
    );
    await expect402(
      await service.request('POST', `${ws.base}/post-groups`, {
        token: ws.tokens.editor,
        body: { title: 'Held', posts: [{ platform: 'x', contentText: 'Not while overdue' }] },
      }),
      'subscription_overdue_read_only',
    );
    // Removing someone else is a write like any other.
    await expect402(
      await service.request('DELETE', `${org(ws)}/members/${memberIdOf(ws.orgId, ws.userIds.editor)}`, {
        token: ws.tokens.owner,
      }),
      'subscription_overdue_read_only',
    );
    expect(await eventCount(service)).toBe(before);

    // Reads work, billing shows why.
    expect((await service.request('GET', `${ws.base}/tags`, { token: ws.tokens.viewer })).status).toBe(200);
    expect((await service.request('GET', org(ws), { token: ws.tokens.viewer })).status).toBe(200);
    const billing = await service.request('GET', `${org(ws)}/billing`, { token: ws.tokens.owner });
    expect(billing.status).toBe(200);
    const { data } = (await billing.json()) as {
      data: { subscription: { status: string; accessState: string } };
    };
    expect(data.subscription).toMatchObject({ status: 'past_due', accessState: 'read_only' });
  });

  test('billing, the payment fix, one’s own notifications and leaving stay writable', async () => {
    const payment = await service.request('POST', `${org(ws)}/billing/subscription/update-payment`, {
      token: ws.tokens.owner,
      body: {},
    });
    expect(payment.status).toBe(200);
    expect(
      (await service.request('POST', `${org(ws)}/notifications/read-all`, { token: ws.tokens.editor }))
        .status,
    ).toBe(200);
    expect(
      (
        await service.request('PUT', `${org(ws)}/notifications/preferences`, {
          token: ws.tokens.editor,
          body: { routineEmail: false },
        })
      ).status,
    ).toBe(200);
    // The viewer leaves (their own member id).
    const leave = await service.request(
      'DELETE',
      `${org(ws)}/members/${memberIdOf(ws.orgId, ws.userIds.viewer)}`,
      { token: ws.tokens.viewer },
    );
    expect(leave.status).toBe(200);
  });

  test('simulate recovered: the next write works', async () => {
    await simulateRecovered(ws.orgId);
    expect((await createTag(ws)).status).toBe(200);
  });
});

test('an overdue workspace can still be deleted (its other writes are refused)', async () => {
  const ws = await createTestWorkspace(service, 'Overdue delete');
  await activate(ws.orgId);
  await simulatePastDue(ws.orgId);
  await expect402(
    await service.request('PATCH', org(ws), { token: ws.tokens.owner, body: { name: 'Renamed' } }),
    'subscription_overdue_read_only',
  );
  expect((await service.request('DELETE', org(ws), { token: ws.tokens.owner })).status).toBe(200);
});

test('the grace period’s end makes it read-only without waiting for the restricting event', async () => {
  const ws = await createTestWorkspace(service, 'Grace');
  await activate(ws.orgId);
  // Failed 8 days ago: the 7-day grace is over, and nothing restricted it yet.
  await applyNotice(deps, renewal(ws.orgId, 'failed', new Date(Date.now() - 8 * 86_400_000)));
  await expect402(await createTag(ws), 'subscription_overdue_read_only');
  // Within its grace a past-due workspace writes and publishes as before.
  const fresh = await createTestWorkspace(service, 'In grace');
  await activate(fresh.orgId);
  await applyNotice(deps, renewal(fresh.orgId, 'failed'));
  expect((await createTag(fresh)).status).toBe(200);
});

describe('a workspace without a usable subscription', () => {
  test('a canceled trial gets 402 subscription_required on paid actions; other writes work', async () => {
    const ws = await createTestWorkspace(service, 'Canceled');
    const cancel = await service.request('POST', `${org(ws)}/billing/subscription/cancel`, {
      token: ws.tokens.owner,
    });
    expect(cancel.status).toBe(200);
    const before = await eventCount(service);
    await expect402(
      await service.request('POST', `${ws.base}/posts/${randomUUID()}/post-now`, { token: ws.tokens.owner }),
      'subscription_required',
    );
    await expect402(
      await service.request('POST', `${ws.base}/post-groups/${randomUUID()}/schedule`, {
        token: ws.tokens.owner,
        body: {},
      }),
      'subscription_required',
    );
    await expect402(
      await service.request('POST', `${ws.base}/post-groups/${randomUUID()}/approve`, {
        token: ws.tokens.owner,
        body: {},
      }),
      'subscription_required',
    );
    // Generating a strategy may spend credits: a paid action.
    await expect402(
      await service.request('POST', `${org(ws)}/strategy/generate`, { token: ws.tokens.owner, body: {} }),
      'subscription_required',
    );
    expect(await eventCount(service)).toBe(before);
    // Writing one by hand is an ordinary write.
    const written = await service.request('PATCH', `${org(ws)}/strategy`, {
      token: ws.tokens.owner,
      body: { primaryObjective: 'Grow' },
    });
    expect(written.status).toBe(200);
    // Approving without scheduling is no paid action (here: no such group).
    const approve = await service.request('POST', `${ws.base}/post-groups/${randomUUID()}/approve`, {
      token: ws.tokens.owner,
      body: { autoSchedule: false },
    });
    expect(approve.status).toBe(404);
    expect((await createTag(ws)).status).toBe(200);
  });

  test('a role without the permission still gets its 403 first', async () => {
    const ws = await createTestWorkspace(service, 'Order');
    await activate(ws.orgId);
    await simulatePastDue(ws.orgId);
    expect(
      (
        await service.request('PATCH', `${org(ws)}/timezone`, {
          token: ws.tokens.viewer,
          body: { timezone: 'UTC' },
        })
      ).status,
    ).toBe(403);
    expect((await createTag(ws, 'not-a-token')).status).toBe(401);
  });
});

test('assistants meet the same policy: write tools are refused while read-only, reads work', async () => {
  const ws = await createTestWorkspace(service, 'Assistant');
  await activate(ws.orgId);
  const assistant = await connectAssistant(service, {
    userId: ws.userIds.editor,
    orgId: ws.orgId,
    scopes: ['posts:write'],
  });
  await simulatePastDue(ws.orgId);
  const before = await eventCount(service);
  const refused = await assistant.client.callTool({
    name: 'create_draft_post',
    arguments: { title: 'Overdue', posts: [{ platform: 'x', contentText: 'Refused' }] },
  });
  expect(refused.isError).toBe(true);
  expect(refused.structuredContent).toMatchObject({ status: 402, code: 'subscription_overdue_read_only' });
  expect(await eventCount(service)).toBe(before);
  const listed = await assistant.client.callTool({ name: 'list_posts', arguments: {} });
  expect(listed.isError).toBeFalsy();
});

test('the sweep holds the due posts of a read-only workspace and publishes them once it is paid', async () => {
  // A service whose sweep runs only when the test says, so nothing depends on how long the setup takes.
  const held = await startTestService({ publishing: { sweep: false } });
  try {
    const heldDeps = { ...deps, commands: held.runtime.commands };
    const ws = await createTestWorkspace(held, 'Held posts');
    await activate(ws.orgId, heldDeps);
    const account = await connectSandboxAccount(held, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x', {
      account: 'overdue_ws',
    });
    const created = await held.request('POST', `${ws.base}/post-groups`, {
      token: ws.tokens.owner,
      body: {
        title: 'Planned',
        posts: [{ platform: 'x', contentText: `Held ${randomUUID()}`, socialAccountId: account.id }],
      },
    });
    expect(created.status).toBe(200);
    const data = ((await created.json()) as { data: { group: { id: string }; posts: PostView[] } }).data;
    const postId = data.posts[0]!.id;
    const due = Date.now() + 1500;
    const approved = await held.request('POST', `${ws.base}/post-groups/${data.group.id}/approve`, {
      token: ws.tokens.owner,
      body: { scheduledForUtc: new Date(due).toISOString() },
    });
    expect(approved.status).toBe(200);
    await simulatePastDue(ws.orgId, heldDeps);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 100));

    // Due, and the workspace read-only: the sweep sends nothing; the post stays scheduled (not failed).
    const sweep = () => held.runtime.publishing!.sweepOnce();
    expect(await sweep()).toBe(0);
    expect(await sandboxPublicationsOf(held.runtime.readModels, postId)).toHaveLength(0);
    const scheduled = await held.request('GET', `${ws.base}/posts?filter[status]=scheduled`, {
      token: ws.tokens.viewer,
    });
    expect(
      ((await scheduled.json()) as { data: { items: PostView[] } }).data.items.map((p) => p.id),
    ).toContain(postId);

    // Paid again: the next sweep sends it, and it is published.
    await simulateRecovered(ws.orgId, heldDeps);
    expect(await sweep()).toBe(1);
    await waitUntil(async () => (await sandboxPublicationsOf(held.runtime.readModels, postId)).length === 1, {
      timeoutMs: 20_000,
      what: 'the held post to be published',
    });
  } finally {
    await held.stop();
  }
});

describe('the policy', () => {
  const orgId = randomUUID();
  const userId = randomUUID();
  const caller: Caller = { kind: 'user', userId, orgId, role: 'owner', permissions: [] };
  /** What a call needs of the subscription, by the operation's declared rule (api/shared/operation.ts). */
  const kindOf = (method: string, path: string, input: Record<string, unknown> = {}) => {
    const op = declared.find((o) => o.method === method && o.path === path);
    if (!op) throw new Error(`no operation ${method} ${path}`);
    return billingKindOf(op, { orgId, ...input }, caller);
  };

  test('which operations are reads, exempt, writes or paid actions', () => {
    const base = '/v1/orgs/{orgId}';
    expect(kindOf('get', `${base}/marketing/tags`)).toBeNull();
    expect(kindOf('post', `${base}/marketing/tags`)).toBe('write');
    expect(kindOf('patch', base)).toBe('write');
    expect(kindOf('delete', base)).toBeNull();
    expect(kindOf('post', `${base}/billing/subscription/update-payment`)).toBeNull();
    expect(kindOf('post', `${base}/notifications/read-all`)).toBeNull();
    expect(kindOf('put', `${base}/notifications/preferences`)).toBeNull();
    const member = `${base}/members/{memberId}`;
    expect(kindOf('delete', member, { memberId: memberIdOf(orgId, userId) })).toBeNull();
    expect(kindOf('delete', member, { memberId: memberIdOf(orgId, randomUUID()) })).toBe('write');
    expect(kindOf('post', `${base}/marketing/posts/{postId}/post-now`)).toBe('paid');
    expect(kindOf('post', `${base}/marketing/post-groups/{groupId}/schedule`)).toBe('paid');
    const approve = `${base}/marketing/post-groups/{groupId}/approve`;
    expect(kindOf('post', approve)).toBe('paid');
    expect(kindOf('post', approve, { autoSchedule: false })).toBe('write');
    expect(kindOf('post', `${base}/strategy/generate`)).toBe('paid');
    expect(kindOf('patch', `${base}/strategy`)).toBe('write');
    expect(kindOf('get', `${base}/strategy`)).toBeNull();
    expect(kindOf('post', `${base}/dms`)).toBe('write');
    expect(kindOf('post', `${base}/dms`, { draft: true })).toBe('paid');
    expect(kindOf('patch', `${base}/dms/{conversationId}`, { draft: true })).toBe('paid');
    expect(kindOf('post', `${base}/dms/{conversationId}/draft`)).toBe('paid');
    expect(kindOf('patch', `${base}/engagement/settings`)).toBe('write');
    // The research tools (issue 31): reads stay open; research that spends credits is paid; settings a write.
    expect(kindOf('get', `${base}/inspiration/trends`)).toBeNull();
    expect(kindOf('get', `${base}/inspiration/news`)).toBeNull();
    expect(kindOf('post', `${base}/inspiration/trends/search`)).toBe('paid');
    expect(kindOf('post', `${base}/inspiration/x-accounts`)).toBe('paid');
    expect(kindOf('patch', `${base}/inspiration/newsjacking-settings`)).toBe('write');

    // The context library (issue 31): connecting, syncing and curating are writes; disconnecting a source and
    // deleting a document take third-party data out and stay open (docs/decisions.md, "Context library").
    expect(kindOf('post', `${base}/context/sources/notion/oauth/start`)).toBe('write');
    expect(kindOf('post', `${base}/context/sources/{sourceId}/sync`)).toBe('write');
    expect(kindOf('patch', `${base}/context/documents/{documentId}`)).toBe('write');
    expect(kindOf('delete', `${base}/context/sources/{sourceId}`)).toBeNull();
    expect(kindOf('delete', `${base}/context/documents/{documentId}`)).toBeNull();
    expect(kindOf('get', `${base}/context/sources/{sourceId}/pages`)).toBeNull();
    // Issue 31: saving (an X read, an analysis by a model), re-analysing and drafting spend credits.
    expect(kindOf('post', `${base}/inspiration`)).toBe('paid');
    expect(kindOf('post', `${base}/inspiration/{itemId}/analyze`)).toBe('paid');
    expect(kindOf('post', `${base}/inspiration/{itemId}/drafts`)).toBe('paid');
    expect(kindOf('patch', `${base}/inspiration/{itemId}`)).toBe('write');
    expect(kindOf('post', `${base}/inspiration/{itemId}/opportunity`)).toBe('write');
    expect(kindOf('get', `${base}/inspiration`)).toBeNull();
    expect(kindOf('get', `${base}/inspiration/opportunities`)).toBeNull();
    expect(kindOf('post', '/v1/orgs')).toBeNull();
    expect(kindOf('patch', '/v1/users/me')).toBeNull();
  });

  test('every billing and notification operation stays open while overdue; every other workspace write is refused', () => {
    for (const op of declared) {
      if (op.access.workspace === false || op.kind === 'read') continue;
      const exempt =
        op.path.startsWith('/v1/orgs/{orgId}/billing') ||
        op.path.startsWith('/v1/orgs/{orgId}/notifications');
      if (exempt) expect(billingKindOf(op, { orgId }, caller), op.name).toBeNull();
      else if (op.method !== 'delete') expect(billingKindOf(op, { orgId }, caller), op.name).not.toBeNull();
    }
  });

  test("another instance's cache is dropped by the projection's notification, not by its TTL", async () => {
    const ws = await createTestWorkspace(service, 'Cache');
    await activate(ws.orgId);
    // Another instance: it does not fold (no local announcements) and would keep an entry for an hour.
    const other = new BillingAccess({
      db: service.runtime.readModels,
      now: () => new Date(),
      ttlMs: 3_600_000,
      followLocalChanges: false,
    });
    try {
      await other.listen(service.runtime.database.url);
      await other.check(ws.orgId, 'write');
      await simulatePastDue(ws.orgId);
      await waitUntil(async () => (await other.accessOf(ws.orgId)).accessState === 'read_only', {
        timeoutMs: 10_000,
      });
      await expect(other.check(ws.orgId, 'write')).rejects.toMatchObject({
        status: 402,
        code: 'subscription_overdue_read_only',
      });
      await simulateRecovered(ws.orgId);
      await waitUntil(async () => (await other.accessOf(ws.orgId)).accessState === 'full', {
        timeoutMs: 10_000,
      });
    } finally {
      await other.close();
    }
  });

  test("the sweep's SQL rule and accessOf agree: it publishes exactly when access is full and usable", async () => {
    const now = new Date();
    const past = new Date(now.getTime() - 86_400_000).toISOString();
    const future = new Date(now.getTime() + 86_400_000).toISOString();
    const statuses = ['trialing', 'active', 'pausing', 'paused', 'past_due', 'canceled'] as const;
    for (const status of statuses)
      for (const trialEndsAt of [null, past, future])
        for (const graceEndsAt of [null, past, future])
          for (const restrictedSince of [null, past]) {
            const state = {
              ...initialSubscriptionState,
              status,
              trialEndsAt,
              graceEndsAt,
              restrictedSince,
            };
            const access = accessOf(state, now);
            const row = await sql<{ ok: boolean }>`
              select ${mayPublishSql('s', now.toISOString())} as ok
              from (select ${status}::text as status, ${trialEndsAt}::timestamptz as trial_ends_at,
                           ${graceEndsAt}::timestamptz as grace_ends_at,
                           ${restrictedSince}::timestamptz as restricted_since) s`.execute(
              service.runtime.readModels,
            );
            expect(row.rows[0]!.ok, JSON.stringify(state)).toBe(
              access.accessState === 'full' && access.usable,
            );
          }
  });

  test('a workspace without a subscription yet is a trial starting now: usable, full access', async () => {
    const access = new BillingAccess({ db: service.runtime.readModels, now: () => new Date() });
    expect(await access.accessOf(randomUUID())).toEqual({ accessState: 'full', usable: true, reason: null });
    await access.close();
  });
});
