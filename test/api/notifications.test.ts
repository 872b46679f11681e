// ORG/notifications through the whole service: an event notifies each intended member exactly once, again after
// the events are folded a second time and after a rebuild (read and dismiss kept); read, dismiss, read-all,
// dismiss-all, unreadOnly and paging; preferences (in-app off, e-mail off, the daily digest); 404 for ids that are
// not the caller's; e-mails sent once, never again after a rebuild.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { slices } from '../../api/slices.js';
import { findGeneration } from '../../projections/engine/catalog.js';
import { rebuildProjection } from '../../projections/engine/rebuild.js';
import { NotificationMailer } from '../../processes/notifications/notification-mailer.js';
import { LocalMailbox } from '../../infra/mail/local-mailbox.js';
import type { Role } from '../../domain/workspaces/roles.js';
import { causeIdOf, notificationIdOf } from '../../domain/notifications/ids.js';
import { changeMember } from '../../commands/workspaces/workspace-commands.js';
import { awaitReadModels } from '../../commands/shared/command-handler.js';
import { memberIdOf } from '../../domain/workspaces/views.js';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { connectSandboxAccount } from '../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let db: Kysely<any>;

beforeAll(async () => {
  // The mailer worker is run by hand (runOnce) so each e-mail check is deterministic.
  service = await startTestService({
    slices: slices.map((s) => (s.name === 'notifications' ? { ...s, workers: [] } : s)),
    // A slow machine makes post-now slower, not its answer `publishing`.
    env: { POST_NOW_WAIT_MS: '20000' },
  });
  db = service.runtime.database.db;
  ws = await createTestWorkspace(service, 'Notify');
  other = await createTestWorkspace(service, 'Other');
});
afterAll(async () => service.stop());

interface Notification {
  id: string;
  orgId: string;
  type: string;
  title: string;
  tier: string;
  channels: string[];
  status: string;
  dedupeKey: string;
  readAt: string | null;
  dismissedAt: string | null;
  emailSentAt: string | null;
  createdAt: string;
}
interface Inbox {
  items: Notification[];
  total: number;
  unreadCount: number;
  page: number;
  limit: number;
}

const orgPath = (w: TestWorkspace) => `/v1/orgs/${w.orgId}`;

async function call(
  w: TestWorkspace,
  role: Role,
  method: string,
  path: string,
  body?: unknown,
  // Answers are read loosely; each test asserts the fields it cares about.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; data: any }> {
  const res = await service.request(method, `${orgPath(w)}${path}`, { token: w.tokens[role], body });
  const json = (await res.json()) as { data?: unknown };
  return { status: res.status, data: json.data ?? json };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function ok(w: TestWorkspace, role: Role, method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(w, role, method, path, body);
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.data)}`);
  return res.data;
}

/**
 * Waits until every read model has folded the whole log: a write that notifies others does not wait for the
 * notifications read model (it is not the writer's to read), so a test reading another member's inbox waits here.
 */
async function settled(): Promise<void> {
  const store = service.runtime.eventStore;
  let from = store.start;
  let last: string | undefined;
  for (;;) {
    const page = await store.readAll({ from, limit: 1000 });
    last = page.events[page.events.length - 1]?.position ?? last;
    from = page.checkpoint;
    if (page.isEnd) break;
  }
  if (last !== undefined) await awaitReadModels(service.runtime.commands, last);
}

async function inbox(role: Role, query = 'unreadOnly=false', w: TestWorkspace = ws): Promise<Inbox> {
  await settled();
  return (await ok(w, role, 'GET', `/notifications?${query}`)) as Inbox;
}

/** An editor's draft sent for review: the cause of one approval_requested notification per approver. */
async function submitDraft(title: string, w: TestWorkspace = ws): Promise<string> {
  const { group } = await ok(w, 'editor', 'POST', '/marketing/post-groups', {
    title,
    posts: [{ platform: 'x', contentText: `${title} text` }],
  });
  await ok(w, 'editor', 'PATCH', `/marketing/post-groups/${group.id}`, { status: 'pending_approval' });
  await settled();
  return group.id as string;
}

const byTitle = (box: Inbox, title: string) => box.items.filter((n) => n.title.includes(title));

async function emailOf(role: Role, w: TestWorkspace = ws): Promise<string> {
  const { rows } = await sql<{
    email: string;
  }>`select email from users where id = ${w.userIds[role]}`.execute(db);
  return rows[0]!.email;
}

async function mailsTo(email: string): Promise<Array<{ subject: string; text_body: string }>> {
  const { rows } = await sql<{ subject: string; text_body: string }>`
    select subject, text_body from local_mailbox where lower(recipient) = lower(${email}) order by id`.execute(
    db,
  );
  return rows;
}

function mailer(now?: () => Date) {
  return new NotificationMailer({
    db,
    mailer: new LocalMailbox(db),
    logger: service.runtime.logger,
    owner: 'test',
    publicBaseUrl: 'http://localhost:3000',
    ...(now ? { now } : {}),
  });
}

/** Folds every event of the log into the serving generation again, as a replay after a crash would. */
async function replayAll(): Promise<void> {
  const generation = await findGeneration(db, 'notifications', 'serving');
  if (!generation) throw new Error('no serving notifications generation');
  const store = service.runtime.eventStore;
  // The read model the notifications slice builds from the rules the slices contribute.
  const notificationsProjection = service.runtime.projections.find((p) => p.name === 'notifications')!;
  let from = store.start;
  for (;;) {
    const page = await store.readAll({
      from,
      limit: 500,
      filter: { eventTypes: notificationsProjection.eventTypes! },
    });
    await db
      .transaction()
      .execute((trx) => notificationsProjection.fold(trx, page.events, generation.schemaName));
    from = page.checkpoint;
    if (page.isEnd) break;
  }
}

async function rebuild(): Promise<void> {
  const { runtime } = service;
  await rebuildProjection(
    {
      db: runtime.database.db,
      eventStore: runtime.eventStore,
      projections: runtime.projections,
      logger: runtime.logger,
    },
    'notifications',
  );
}

describe('fan-out and deduplication', () => {
  test('a draft sent for review notifies owner, admin and reviewer once each, and nobody else', async () => {
    await submitDraft('Launch day');
    for (const role of ['owner', 'admin', 'reviewer'] as const) {
      const mine = byTitle(await inbox(role), 'Launch day');
      expect(mine, role).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        orgId: ws.orgId,
        type: 'approval_requested',
        tier: 'action_required',
        channels: ['in_app', 'email'],
        status: 'pending',
        readAt: null,
        dismissedAt: null,
        emailSentAt: null,
      });
      expect(mine[0]!.dedupeKey).toMatch(/^approval_requested:/);
      // The id is derived from the workspace, the dedupeKey and the member, so a rebuild gives the same one.
      expect(mine[0]!.id).toBe(notificationIdOf(causeIdOf(ws.orgId, mine[0]!.dedupeKey), ws.userIds[role]));
    }
    expect(byTitle(await inbox('editor'), 'Launch day')).toHaveLength(0);
    expect(byTitle(await inbox('viewer'), 'Launch day')).toHaveLength(0);
    // Three rows in all for the cause, one per approver, and none in the other workspace.
    expect(byTitle(await inbox('owner', 'unreadOnly=false', other), 'Launch day')).toHaveLength(0);
  });

  test('folding the events again and rebuilding leave the same rows, with read and dismiss kept', async () => {
    await submitDraft('Replayed');
    const reviewer = byTitle(await inbox('reviewer'), 'Replayed')[0]!;
    const admin = byTitle(await inbox('admin'), 'Replayed')[0]!;
    await ok(ws, 'reviewer', 'POST', `/notifications/${reviewer.id}/read`);
    await ok(ws, 'admin', 'POST', `/notifications/${admin.id}/dismiss`);

    const snapshot = async () =>
      Promise.all((['owner', 'admin', 'reviewer', 'editor', 'viewer'] as const).map((r) => inbox(r)));
    const { rows: countBefore } = await sql<{ n: number }>`
      select count(*)::int as n from notifications`.execute(db);
    const before = await snapshot();

    await replayAll();
    expect(await snapshot()).toEqual(before);

    await rebuild();
    const after = await snapshot();
    expect(after).toEqual(before);
    const { rows: countAfter } = await sql<{ n: number }>`
      select count(*)::int as n from notifications`.execute(db);
    expect(countAfter[0]!.n).toBe(countBefore[0]!.n);
    const reread = byTitle(after[2]!, 'Replayed')[0]!;
    expect(reread.id).toBe(reviewer.id);
    expect(reread.readAt).not.toBeNull();
    expect(byTitle(after[1]!, 'Replayed')).toHaveLength(0);
  });
});

describe('who is notified', () => {
  const system = (orgId: string) => ({
    orgId,
    actor: 'system',
    correlationId: randomUUID(),
    causationId: null,
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  });

  /** Appends events as the token refresher or the publisher would, and waits until the read models show them. */
  async function append(stream: string, type: string, data: Record<string, unknown>, orgId: string) {
    const { position } = await service.runtime.eventStore.appendToStream(
      stream,
      [{ type, data, metadata: system(orgId) }],
      { expectedRevision: 'any' },
    );
    await awaitReadModels(service.runtime.commands, position);
  }

  test('a suspended member is not notified; reactivated, they are again', async () => {
    const w = await createTestWorkspace(service, 'Suspend');
    const metadata = {
      orgId: w.orgId,
      actor: 'system',
      correlationId: randomUUID(),
      now: new Date().toISOString(),
    };
    const owner = { userId: w.userIds.owner, role: 'owner' as const };
    const reviewer = memberIdOf(w.orgId, w.userIds.reviewer);
    await changeMember(
      service.runtime.commands,
      w.orgId,
      { actor: owner, memberId: reviewer, status: 'suspended' },
      metadata,
    );
    await submitDraft('While away', w);
    await settled();
    const { rows } = await sql<{ user_id: string }>`
      select n.user_id from notifications n join notification_causes c on c.cause_id = n.cause_id
      where n.org_id = ${w.orgId} and c.title like '%While away%'`.execute(db);
    expect(rows.map((r) => r.user_id).sort()).toEqual([w.userIds.owner, w.userIds.admin].sort());

    await changeMember(
      service.runtime.commands,
      w.orgId,
      { actor: owner, memberId: reviewer, status: 'active' },
      metadata,
    );
    await submitDraft('Back again', w);
    expect(byTitle(await inbox('reviewer', 'unreadOnly=false', w), 'Back again')).toHaveLength(1);
    expect(byTitle(await inbox('reviewer', 'unreadOnly=false', w), 'While away')).toHaveLength(0);
  });

  test('token expiring and a failed refresh go to those who manage accounts, once per cause', async () => {
    const w = await createTestWorkspace(service, 'Accounts');
    const accountId = randomUUID();
    const notice = { accountId, orgId: w.orgId, platform: 'linkedin', accountHandle: 'acme' };
    const expiring = {
      ...notice,
      tokenExpiresAt: '2030-01-01T00:00:00.000Z',
      warnedAt: new Date().toISOString(),
    };
    await append(`socialAccount-${accountId}`, 'SocialAccountTokenExpiring', expiring, w.orgId);
    // The same warning again (a replayed or repeated event) is the same cause.
    await append(`socialAccount-${accountId}`, 'SocialAccountTokenExpiring', expiring, w.orgId);
    await append(
      `socialAccount-${accountId}`,
      'SocialAccountRefreshFailed',
      { ...notice, reason: 'invalid_grant', failedAt: new Date().toISOString() },
      w.orgId,
    );
    for (const role of ['owner', 'admin'] as const) {
      const types = (await inbox(role, 'unreadOnly=false', w)).items.map((n) => n.type).sort();
      expect(types, role).toEqual(['account_needs_reconnect', 'token_expiring']);
    }
    for (const role of ['reviewer', 'editor', 'viewer'] as const)
      expect((await inbox(role, 'unreadOnly=false', w)).total, role).toBe(0);
  });

  test('a post drafted, approved and published tells each member what concerns them', async () => {
    const w = await createTestWorkspace(service, 'Publish');
    const account = await connectSandboxAccount(service, { orgId: w.orgId, userId: w.userIds.owner }, 'x');
    const { group, posts } = await ok(w, 'editor', 'POST', '/marketing/post-groups', {
      title: 'Ship it',
      posts: [{ platform: 'x', contentText: 'We shipped', socialAccountId: account.id }],
    });
    await ok(w, 'editor', 'PATCH', `/marketing/post-groups/${group.id}`, { status: 'pending_approval' });
    await ok(w, 'reviewer', 'POST', `/marketing/post-groups/${group.id}/approve`, { autoSchedule: false });
    const published = await ok(w, 'reviewer', 'POST', `/marketing/posts/${posts[0].id}/post-now`);
    expect(published.status).toBe('published');

    const typesOf = async (role: Role) =>
      (await inbox(role, 'unreadOnly=false', w)).items.map((n) => `${n.tier}:${n.type}`).sort();
    expect(await typesOf('editor')).toEqual([
      'meaningful_win:first_post_published',
      'routine:post_approved',
      'routine:post_published',
    ]);
    expect(await typesOf('reviewer')).toEqual([
      'action_required:approval_requested',
      'meaningful_win:first_post_published',
    ]);
    expect(await typesOf('viewer')).toEqual(['meaningful_win:first_post_published']);
  });

  test("the workspace's first published post tells every member, once", async () => {
    const w = await createTestWorkspace(service, 'First');
    const published = (postId: string) => ({
      orgId: w.orgId,
      groupId: randomUUID(),
      by: 'system',
      at: new Date().toISOString(),
      postId,
      attempt: 1,
      externalId: 'x-1',
      url: 'https://x.com/acme/status/1',
    });
    const first = published(randomUUID());
    await append(`postGroup-${first.groupId}`, 'PostPublished', first, w.orgId);
    await append(`postGroup-${first.groupId}`, 'PostPublished', first, w.orgId);
    const second = published(randomUUID());
    await append(`postGroup-${second.groupId}`, 'PostPublished', second, w.orgId);
    for (const role of ['owner', 'admin', 'reviewer', 'editor', 'viewer'] as const) {
      const wins = (await inbox(role, 'unreadOnly=false', w)).items;
      expect(
        wins.map((n) => [n.type, n.tier]),
        role,
      ).toEqual([['first_post_published', 'meaningful_win']]);
    }
  });
});

describe('read, dismiss, read-all, dismiss-all', () => {
  test('read answers the read time, twice the same and nothing appended; dismissed ones are gone', async () => {
    await submitDraft('Readable');
    const n = byTitle(await inbox('reviewer'), 'Readable')[0]!;
    const first = await ok(ws, 'reviewer', 'POST', `/notifications/${n.id}/read`);
    expect(first).toEqual({ id: n.id, readAt: expect.any(String), status: 'read' });
    const events = await eventCount(service);
    const again = await ok(ws, 'reviewer', 'POST', `/notifications/${n.id}/read`);
    expect(again).toEqual(first);
    expect(await eventCount(service)).toBe(events);

    const listed = byTitle(await inbox('reviewer'), 'Readable')[0]!;
    expect(listed).toMatchObject({ status: 'read', readAt: first.readAt });
    expect(byTitle(await inbox('reviewer', 'unreadOnly=true'), 'Readable')).toHaveLength(0);

    const dismissed = await ok(ws, 'reviewer', 'POST', `/notifications/${n.id}/dismiss`);
    expect(dismissed).toEqual({ id: n.id, dismissedAt: expect.any(String) });
    expect(byTitle(await inbox('reviewer'), 'Readable')).toHaveLength(0);
    const twice = await ok(ws, 'reviewer', 'POST', `/notifications/${n.id}/dismiss`);
    expect(twice).toEqual(dismissed);
    expect((await call(ws, 'reviewer', 'POST', `/notifications/${n.id}/read`)).status).toBe(404);
  });

  test("another member's, another workspace's or an unknown id is a 404; a malformed one a 400", async () => {
    await submitDraft('Private');
    const n = byTitle(await inbox('reviewer'), 'Private')[0]!;
    const events = await eventCount(service);
    expect((await call(ws, 'owner', 'POST', `/notifications/${n.id}/read`)).status).toBe(404);
    expect((await call(ws, 'editor', 'POST', `/notifications/${n.id}/dismiss`)).status).toBe(404);
    expect((await call(other, 'reviewer', 'POST', `/notifications/${n.id}/read`)).status).toBe(404);
    expect((await call(ws, 'reviewer', 'POST', `/notifications/${randomUUID()}/read`)).status).toBe(404);
    const bad = await call(ws, 'reviewer', 'POST', '/notifications/not-an-id/read');
    expect(bad.status).toBe(400);
    // Another workspace's path with this workspace's token.
    const res = await service.request('GET', `${orgPath(other)}/notifications?unreadOnly=false`, {
      token: ws.tokens.reviewer,
    });
    expect(res.status).toBe(403);
    expect(await eventCount(service)).toBe(events);
  });

  test('unreadOnly is required and checked; paging is newest first with total and unreadCount', async () => {
    expect((await call(ws, 'owner', 'GET', '/notifications')).status).toBe(400);
    expect((await call(ws, 'owner', 'GET', '/notifications?unreadOnly=yes')).status).toBe(400);
    expect((await call(ws, 'owner', 'GET', '/notifications?unreadOnly=true&limit=0')).status).toBe(400);
    expect((await call(ws, 'owner', 'GET', '/notifications?unreadOnly=true&sort=x')).status).toBe(400);

    for (const t of ['Page A', 'Page B', 'Page C']) await submitDraft(t);
    const all = await inbox('owner');
    const first = await inbox('owner', 'unreadOnly=false&limit=2&page=1');
    const second = await inbox('owner', 'unreadOnly=false&limit=2&page=2');
    expect(first).toMatchObject({ page: 1, limit: 2, total: all.total, unreadCount: all.unreadCount });
    expect(first.items.map((n) => n.title)).toEqual([
      expect.stringContaining('Page C'),
      expect.stringContaining('Page B'),
    ]);
    expect(second.items[0]!.title).toContain('Page A');
    const times = all.items.map((n) => Date.parse(n.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  test('read-all marks every unread one and answers how many; dismiss-all empties the list', async () => {
    for (const t of ['Bulk 1', 'Bulk 2']) await submitDraft(t);
    const before = await inbox('admin');
    expect(before.unreadCount).toBeGreaterThanOrEqual(2);
    const { markedCount } = await ok(ws, 'admin', 'POST', '/notifications/read-all');
    expect(markedCount).toBe(before.unreadCount);
    const after = await inbox('admin');
    expect(after.unreadCount).toBe(0);
    expect(after.total).toBe(before.total);
    expect((await inbox('admin', 'unreadOnly=true')).total).toBe(0);
    const events = await eventCount(service);
    expect(await ok(ws, 'admin', 'POST', '/notifications/read-all')).toEqual({ markedCount: 0 });
    expect(await eventCount(service)).toBe(events);

    // A new one after read-all is unread; dismiss-all takes everything up to now.
    await submitDraft('Bulk 3');
    expect((await inbox('admin')).unreadCount).toBe(1);
    const { dismissedCount } = await ok(ws, 'admin', 'POST', '/notifications/dismiss-all');
    expect(dismissedCount).toBe(after.total + 1);
    expect(await inbox('admin')).toMatchObject({ items: [], total: 0, unreadCount: 0 });
    expect(await ok(ws, 'admin', 'POST', '/notifications/dismiss-all')).toEqual({ dismissedCount: 0 });

    // The state survives a rebuild.
    await rebuild();
    expect(await inbox('admin')).toMatchObject({ items: [], total: 0, unreadCount: 0 });
    await submitDraft('Bulk 4');
    expect((await inbox('admin')).total).toBe(1);
  });
});

describe('preferences and e-mail', () => {
  test('defaults until changed; PUT changes the toggles given and refuses unknown ones', async () => {
    const defaults = await ok(ws, 'viewer', 'GET', '/notifications/preferences');
    expect(defaults).toEqual({
      orgId: ws.orgId,
      userId: ws.userIds.viewer,
      emailEnabled: true,
      inAppEnabled: true,
      actionRequiredEmail: true,
      meaningfulWinEmail: true,
      routineEmail: false,
      digestEnabled: true,
      approvalRemindersEmail: true,
      updatedAt: null,
    });
    const events = await eventCount(service);
    expect((await call(ws, 'viewer', 'PUT', '/notifications/preferences', { bogus: true })).status).toBe(400);
    expect(
      (await call(ws, 'viewer', 'PUT', '/notifications/preferences', { emailEnabled: 'no' })).status,
    ).toBe(400);
    expect(await eventCount(service)).toBe(events);
    const changed = await ok(ws, 'viewer', 'PUT', '/notifications/preferences', { routineEmail: true });
    expect(changed).toMatchObject({ routineEmail: true, emailEnabled: true, updatedAt: expect.any(String) });
    expect(await ok(ws, 'viewer', 'GET', '/notifications/preferences')).toEqual(changed);
    // Each member's own: the owner's stay the defaults.
    expect(await ok(ws, 'owner', 'GET', '/notifications/preferences')).toMatchObject({
      routineEmail: false,
      updatedAt: null,
    });
  });

  test('action-required e-mail goes once to those who want it; in-app off hides; a rebuild sends nothing again', async () => {
    const w = await createTestWorkspace(service, 'Mail');
    await ok(w, 'admin', 'PUT', '/notifications/preferences', { emailEnabled: false });
    await ok(w, 'reviewer', 'PUT', '/notifications/preferences', { inAppEnabled: false });
    await submitDraft('Mail me', w);

    const admin = byTitle(await inbox('admin', 'unreadOnly=false', w), 'Mail me');
    expect(admin).toHaveLength(1);
    expect(admin[0]!.channels).toEqual(['in_app']);
    expect(admin[0]!.status).toBe('sent');
    expect(byTitle(await inbox('reviewer', 'unreadOnly=false', w), 'Mail me')).toHaveLength(0);

    const round = await mailer().runOnce();
    expect(round.sent).toBeGreaterThanOrEqual(2);
    const ownerMail = await mailsTo(await emailOf('owner', w));
    expect(ownerMail).toHaveLength(1);
    expect(ownerMail[0]!.subject).toContain('Mail me');
    expect(ownerMail[0]!.text_body).toContain(
      `http://localhost:3000/v1/orgs/${w.orgId}/marketing/post-groups/`,
    );
    // In-app off still e-mails; e-mail off does not.
    expect(await mailsTo(await emailOf('reviewer', w))).toHaveLength(1);
    expect(await mailsTo(await emailOf('admin', w))).toHaveLength(0);
    expect(await mailsTo(await emailOf('editor', w))).toHaveLength(0);

    const owner = byTitle(await inbox('owner', 'unreadOnly=false', w), 'Mail me')[0]!;
    expect(owner).toMatchObject({ status: 'sent', emailSentAt: expect.any(String) });

    await rebuild();
    await replayAll();
    await mailer().runOnce();
    expect(await mailsTo(await emailOf('owner', w))).toHaveLength(1);
    expect(byTitle(await inbox('owner', 'unreadOnly=false', w), 'Mail me')[0]).toEqual(owner);
  });

  test('routine news goes in one daily digest for members who chose it, once per day', async () => {
    const w = await createTestWorkspace(service, 'Digest');
    await ok(w, 'editor', 'PUT', '/notifications/preferences', { routineEmail: true });
    const groupId = await submitDraft('Digest me', w);
    await ok(w, 'owner', 'POST', `/marketing/post-groups/${groupId}/approve`, { autoSchedule: false });

    const approved = (await inbox('editor', 'unreadOnly=false', w)).items.find(
      (n) => n.type === 'post_approved',
    );
    expect(approved).toMatchObject({ tier: 'routine', channels: ['in_app', 'email'], status: 'pending' });
    const editorEmail = await emailOf('editor', w);

    // Not before the digest hour of the next day (UTC here), then once.
    const created = new Date(approved!.createdAt);
    const nextDay = (hour: number) =>
      new Date(Date.UTC(created.getUTCFullYear(), created.getUTCMonth(), created.getUTCDate() + 1, hour));
    await mailer().runOnce(nextDay(7));
    expect(await mailsTo(editorEmail)).toHaveLength(0);
    const round = await mailer().runOnce(nextDay(9));
    expect(round.digests).toBeGreaterThanOrEqual(1);
    const mails = await mailsTo(editorEmail);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/daily summary: 1 update/);
    expect(mails[0]!.text_body).toContain('Digest me');
    await mailer().runOnce(nextDay(10));
    await rebuild();
    await mailer().runOnce(nextDay(11));
    expect(await mailsTo(editorEmail)).toHaveLength(1);
    const after = (await inbox('editor', 'unreadOnly=false', w)).items.find((n) => n.id === approved!.id);
    expect(after).toMatchObject({ status: 'sent', emailSentAt: expect.any(String) });
    // Owner and approvers with the defaults (routine e-mail off) got no digest.
    expect((await mailsTo(await emailOf('viewer', w))).length).toBe(0);
  });
});

describe('e-mail failures', () => {
  test('a failed send is retried later with a growing delay, then marked failed; status follows it', async () => {
    const w = await createTestWorkspace(service, 'Outage');
    await submitDraft('Mail outage', w);
    const outage = new NotificationMailer({
      db,
      mailer: {
        send: () => Promise.reject(new Error('SMTP unreachable')),
      },
      logger: service.runtime.logger,
      owner: 'test',
      publicBaseUrl: 'http://localhost:3000',
    });
    const ownerNotification = async () =>
      byTitle(await inbox('owner', 'unreadOnly=false', w), 'Mail outage')[0]!;
    const t0 = Date.now();
    const minutes = (m: number) => new Date(t0 + m * 60_000 + 1_000);
    const first = await outage.runOnce(new Date(t0));
    expect(first.failed).toBeGreaterThanOrEqual(3);
    expect(await ownerNotification()).toMatchObject({ status: 'pending', emailSentAt: null });
    // Not due again before a minute has passed.
    expect((await outage.runOnce(new Date(t0 + 30_000))).failed).toBe(0);
    // 1, 2, 4 and 8 minutes later: the fifth failure is the last.
    for (const m of [1, 3, 7, 15])
      expect((await outage.runOnce(minutes(m))).failed).toBeGreaterThanOrEqual(3);
    const { rows } = await sql<{ status: string; attempts: number; last_error: string }>`
      select status, attempts, last_error from notification_emails
      where notification_id = ${(await ownerNotification()).id}`.execute(db);
    expect(rows[0]).toEqual({ status: 'failed', attempts: 5, last_error: 'SMTP unreachable' });
    expect(await ownerNotification()).toMatchObject({ status: 'failed', emailSentAt: null });
    // A failed e-mail is not tried again, even with the mail server back.
    await mailer().runOnce(minutes(60));
    expect(await mailsTo(await emailOf('owner', w))).toHaveLength(0);
  });
});

describe('a service that gains notifications on an existing event log', () => {
  // Last in this file: it moves the start line of this test database's notifications.
  test('events recorded before notifications began notify nobody, also after a rebuild; later ones do', async () => {
    const w = await createTestWorkspace(service, 'Upgraded');
    await submitDraft('Before the upgrade', w);
    expect(byTitle(await inbox('owner', 'unreadOnly=false', w), 'Before the upgrade')).toHaveLength(1);
    // As if notifications were installed now, on a log that already held that draft.
    await sql`update notifications_start set started_at = now()`.execute(db);
    await rebuild();
    expect(byTitle(await inbox('owner', 'unreadOnly=false', w), 'Before the upgrade')).toHaveLength(0);
    await submitDraft('After the upgrade', w);
    expect(byTitle(await inbox('owner', 'unreadOnly=false', w), 'After the upgrade')).toHaveLength(1);
  });
});
