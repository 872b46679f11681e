// Queries over the social accounts read model: the workspace's accounts (for a caller), one account, and a
// platform's accounts.
// Deleted accounts are invisible to all three; the rows stay so that a reconnect restores the same id.
import type { Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import type { SocialAccountView } from '../../domain/social-accounts/social-account.js';
import type { ReadModels } from '../read-models.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Tool: list_social_accounts. The workspace's accounts, by platform then in connection order. */
export async function listSocialAccounts(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string },
): Promise<SocialAccountView[]> {
  const { orgId } = input;
  authorize(caller, { orgId, permission: 'posts:read', scope: 'mcp:read' });
  const rows = await db
    .selectFrom('social_accounts')
    .select('body')
    .where('org_id', '=', orgId)
    .where('deleted', '=', false)
    .orderBy('platform')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.body);
}

export async function getSocialAccount(
  db: Kysely<ReadModels>,
  orgId: string,
  id: string,
): Promise<SocialAccountView | null> {
  if (!uuidPattern.test(id)) return null;
  const row = await db
    .selectFrom('social_accounts')
    .select('body')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('deleted', '=', false)
    .executeTakeFirst();
  return row?.body ?? null;
}

/** The workspace's accounts of one platform, whatever their status, in connection order. */
export async function findAccountsForPlatform(
  db: Kysely<ReadModels>,
  orgId: string,
  platform: Platform,
): Promise<SocialAccountView[]> {
  const rows = await db
    .selectFrom('social_accounts')
    .select('body')
    .where('org_id', '=', orgId)
    .where('platform', '=', platform)
    .where('deleted', '=', false)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.body);
}
