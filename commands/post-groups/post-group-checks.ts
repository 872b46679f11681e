// What post-group use cases check against the workspace before a decision: the social accounts named on posts
// (connected or known accounts of the workspace and of the post's platform; X Premium accounts give their posts
// the longer limit) and the tags named on a group. Fields are named as the caller gave them (`posts.0.socialAccountId`).
import type { Kysely } from 'kysely';
import type { ContentContext } from '../../domain/post-groups/content-rules.js';
import type { Platform } from '../../domain/post-groups/post-content.js';
import { InvalidFields, type ErrorDetail } from '../../domain/shared/errors.js';
import type { ReadModels } from '../../projections/read-models.js';
import { existingTagIds } from '../../projections/tags/queries.js';

export interface NamedAccount {
  platform: Platform;
  socialAccountId: string | null | undefined;
  /** The field that named it, e.g. `posts.0.socialAccountId`. */
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
  if (details.length > 0) throw new InvalidFields('Unknown or mismatched social accounts', details);
  return {
    xPremiumAccountIds: accounts
      .filter((a) => a.platform === 'x' && a.body.xPremium === true)
      .map((a) => a.id),
  };
}

/** Unknown tag ids are refused, naming each one (`tagIds.1`). */
export async function checkTags(
  db: Kysely<ReadModels>,
  orgId: string,
  tagIds: readonly string[] | undefined,
): Promise<void> {
  if (!tagIds || tagIds.length === 0) return;
  const live = await existingTagIds(db, orgId, tagIds);
  const details: ErrorDetail[] = tagIds.flatMap((id, index) =>
    live.has(id) ? [] : [{ path: `tagIds.${index}`, message: 'Unknown tag in this workspace' }],
  );
  if (details.length > 0) throw new InvalidFields('Unknown tag ids', details);
}
