// The social accounts named on posts: each must be a connected-or-known account of the workspace and of the
// post's platform (a 400 naming the field otherwise); X Premium accounts give their posts the longer limit.
import type { Kysely } from 'kysely';
import type { ContentContext } from '../../domain/post-groups/content-rules.js';
import type { Platform } from '../../domain/post-groups/post-content.js';
import { ValidationError, type ErrorDetail } from '../../domain/shared/errors.js';
import type { ReadModels } from '../../projections/read-models.js';

export interface NamedAccount {
  platform: Platform;
  socialAccountId: string | null | undefined;
  /** Where the caller put it, e.g. `body.posts.0.socialAccountId`. */
  path: string;
}

/** Checks the accounts named and answers the content context their posts are judged with. */
export async function checkPostAccounts(
  db: Kysely<ReadModels>,
  orgId: string,
  named: readonly NamedAccount[],
): Promise<ContentContext> {
  const accounts = await db
    .selectFrom('social_accounts')
    .select(['id', 'platform', 'body'])
    .where('org_id', '=', orgId)
    .where('deleted', '=', false)
    .execute();
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const details: ErrorDetail[] = [];
  for (const { platform, socialAccountId, path } of named) {
    if (socialAccountId == null) continue;
    const account = byId.get(socialAccountId);
    if (!account) details.push({ path, message: 'No such social account in this workspace' });
    else if (account.platform !== platform)
      details.push({ path, message: `A ${account.platform} account cannot publish a ${platform} post` });
  }
  if (details.length > 0)
    throw new ValidationError('Unknown or mismatched social accounts', undefined, details);
  return {
    xPremiumAccountIds: accounts
      .filter((a) => a.platform === 'x' && a.body.xPremium === true)
      .map((a) => a.id),
  };
}
