// The role in a workspace is the member's current one, checked on every request: a demoted admin's token
// loses `accounts:manage` at the next request, and a token of a removed member stops at once (401), including
// for the token exchange. These tests change the workspaces read model as the projection folds such an event,
// announcing the change in the same transaction (membership-changes.ts), which is what the membership cache
// relies on; a suspended member's answers (403 `membership_suspended` on that workspace's routes) are tested
// through the real commands in test/api/members.test.ts, a deleted workspace's in workspace-admin.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember } from '../../../commands/workspaces/workspace-commands.js';
import type { Role } from '../../../domain/workspaces/roles.js';
import { announceMembershipChange } from '../../../projections/workspaces/membership-changes.js';
import { startTestService, type TestService } from '../../support/runtime.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.stop());

const metadata = (orgId: string) => ({
  orgId,
  actor: 'system',
  correlationId: randomUUID(),
  now: new Date().toISOString(),
});

/** A workspace with its owner and one more member of `role`, and that member's workspace token. */
async function workspaceWithMember(role: Role) {
  const owner = await service.userToken();
  const created = await service.request('POST', '/v1/orgs', {
    token: owner.token,
    body: { name: 'Team', slug: `team-${randomUUID().slice(0, 8)}` },
  });
  expect(created.status).toBe(201);
  const orgId = ((await created.json()) as { data: { id: string } }).data.id;
  const member = await service.userToken(undefined, { orgId, role });
  // The join's notification arrives just after its commit; once it has, the member's answers are cached, so
  // the tests below also show that a change reaches a warm cache. (Without the wait they pass all the same.)
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { orgId, member };
}

/** A route that needs `accounts:manage`: 404 for an unknown account when allowed, 403 when not. */
const manageAccount = (orgId: string, token: string) =>
  service.request('PATCH', `/v1/orgs/${orgId}/marketing/accounts/${randomUUID()}`, {
    token,
    body: { profileUrl: null },
  });

/** What folding a suspension or removal does to the read model, announced as the projection does. */
async function changeInReadModel(orgId: string, userId: string, change: 'suspended' | 'removed') {
  await service.runtime.readModels.transaction().execute(async (trx) => {
    await announceMembershipChange(trx, { orgId, userId });
    if (change === 'suspended') {
      await trx
        .updateTable('workspace_members')
        .set({ status: 'suspended' })
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .execute();
    } else {
      await trx
        .deleteFrom('workspace_members')
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .execute();
    }
  });
}

describe('the role is checked on every request', () => {
  test('a demoted admin: the next request with the old token lacks accounts:manage', async () => {
    const { orgId, member } = await workspaceWithMember('admin');
    expect((await manageAccount(orgId, member.token)).status).toBe(404);

    await addMember(
      service.runtime.commands,
      orgId,
      { userId: member.userId, role: 'viewer' },
      metadata(orgId),
    );

    const res = await manageAccount(orgId, member.token);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'Your role does not allow this action' });
    // Still a member: reading works.
    expect(
      (await service.request('GET', `/v1/orgs/${orgId}/marketing/accounts`, { token: member.token })).status,
    ).toBe(200);

    // Promoted again: allowed again, at once.
    await addMember(
      service.runtime.commands,
      orgId,
      { userId: member.userId, role: 'admin' },
      metadata(orgId),
    );
    expect((await manageAccount(orgId, member.token)).status).toBe(404);
  });

  test.each(['removed'] as const)(
    'a %s member: the old token is refused at once (401), on every route, and cannot be exchanged',
    async (change) => {
      const { orgId, member } = await workspaceWithMember('editor');
      const accounts = `/v1/orgs/${orgId}/marketing/accounts`;
      expect((await service.request('GET', accounts, { token: member.token })).status).toBe(200);

      await changeInReadModel(orgId, member.userId, change);

      const res = await service.request('GET', accounts, { token: member.token });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'Not an active member of this workspace' });
      expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect((await service.request('GET', '/v1/users/me', { token: member.token })).status).toBe(401);
      const exchange = await service.request('POST', '/v1/auth/token', {
        token: member.token,
        body: { orgId },
      });
      expect(exchange.status).toBe(401);
      // A user-only token of the same user is fine, but exchanging it for that workspace is not (404).
      const userOnly = await service.userToken(member.email);
      const denied = await service.request('POST', '/v1/auth/token', {
        token: userOnly.token,
        body: { orgId },
      });
      expect(denied.status).toBe(404);
    },
  );
});
