// A workspace with one member per role and their tokens, for API tests of workspace-scoped endpoints.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { addMember } from '../../commands/workspaces/workspace-commands.js';
import { roles, type Role } from '../../domain/workspaces/roles.js';
import type { TestService } from './runtime.js';
import { waitUntil } from './wait.js';

export interface TestWorkspace {
  orgId: string;
  /** A workspace-scoped token per role (owner is the creator). */
  tokens: Record<Role, string>;
  userIds: Record<Role, string>;
  /** `/v1/orgs/<orgId>/marketing` */
  base: string;
}

export async function createTestWorkspace(service: TestService, name = 'Acme'): Promise<TestWorkspace> {
  const suffix = randomUUID().slice(0, 8);
  const owner = await service.userToken(`owner-${suffix}@example.org`);
  const res = await service.request('POST', '/v1/orgs', {
    token: owner.token,
    body: { name, slug: `ws-${suffix}` },
  });
  if (res.status !== 201) throw new Error(`creating a workspace answered ${res.status}: ${await res.text()}`);
  const orgId = ((await res.json()) as { data: { id: string } }).data.id;
  const tokens = {} as Record<Role, string>;
  const userIds = {} as Record<Role, string>;
  for (const role of roles) {
    const email = role === 'owner' ? owner.email : `${role}-${suffix}@example.org`;
    const user = await service.userToken(email, { orgId, role });
    // A member with that role (the role is checked against the membership on every request), whichever
    // userToken the service has.
    await addMember(
      service.runtime.commands,
      orgId,
      { userId: user.userId, role },
      { orgId, actor: 'system', correlationId: randomUUID(), now: new Date().toISOString() },
    );
    tokens[role] = user.token;
    userIds[role] = user.userId;
  }
  await billingSettled(service, orgId);
  return { orgId, tokens, userIds, base: `/v1/orgs/${orgId}/marketing` };
}

/**
 * A new workspace's trial and its first credit period are started by process managers right after it is
 * created (api/billing); waits for the period's grant to be folded (`periods`: how many periods have opened, e.g.
 * 2 after a checkout), so a test that counts events afterwards (refused requests change nothing) does not see
 * them arrive. Nothing to wait for without background work or
 * without the billing slice.
 */
export async function billingSettled(service: TestService, orgId: string, periods = 1): Promise<void> {
  if (!service.background || !service.runtime.projections.some((p) => p.name === 'credits')) return;
  const grants = async () =>
    (
      await sql<{
        n: number;
      }>`select count(*)::int as n from credit_transactions where org_id = ${orgId} and type = 'grant'`.execute(
        service.runtime.readModels,
      )
    ).rows[0]!.n;
  await waitUntil(async () => (await grants()) >= periods, {
    what: `${periods} credit period(s) of workspace ${orgId}`,
  });
}
