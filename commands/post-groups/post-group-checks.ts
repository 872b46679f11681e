// What post-group use cases check against the workspace before a decision: the social accounts named on posts
// (connected or known accounts of the workspace and of the post's platform; X Premium accounts give their posts
// the longer limit), the tags named on a group, and the media of posts (assets of the workspace's media library).
// Fields are named as the caller gave them (`posts.0.socialAccountId`).
import type { Kysely } from 'kysely';
import type { ContentContext } from '../../domain/post-groups/content-rules.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import { withAssetHashes } from '../../domain/post-groups/post-content.js';
import { InvalidFields, Unprocessable, type ErrorDetail } from '../../domain/shared/errors.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { loadMediaAsset } from '../media/media-commands.js';
import { existingMediaAssetIds } from '../../projections/media/queries.js';
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

export interface NamedMedia {
  media: MediaAsset | null | undefined;
  /** The field that carried it, e.g. `posts.0.media`. */
  path: string;
}

/** Every asset id a post's media names, with the field of each (`…media.assetId`, `…media.images.1.assetId`). */
function assetIdsOf({ media, path }: NamedMedia): Array<{ assetId: string; path: string }> {
  if (!media) return [];
  if (media.kind === 'images')
    return media.images.map((image, index) => ({
      assetId: image.assetId,
      path: `${path}.images.${index}.assetId`,
    }));
  return [{ assetId: media.assetId, path: `${path}.assetId` }];
}

/**
 * A post's media must be assets of the workspace's media library (uploaded, imported or rendered there): 422
 * with one error per asset id that is not (another workspace's assets are unknown here alike). Answers each
 * media as it is kept, in the order given: every file carries the SHA-256 of its bytes as the library recorded
 * it (read from the asset's own stream), never a value the caller sent, so the content hash an approval is bound
 * to covers the bytes. An asset recorded before the library kept hashes carries none.
 */
export async function resolvePostMedia(
  db: Kysely<ReadModels>,
  library: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
  named: readonly NamedMedia[],
): Promise<Array<MediaAsset | undefined>> {
  const ids = named.flatMap(assetIdsOf);
  if (ids.length === 0) return named.map(({ media }) => media ?? undefined);
  const known = await existingMediaAssetIds(
    db,
    orgId,
    ids.map((i) => i.assetId),
  );
  const hashes = new Map<string, string | undefined>();
  await Promise.all(
    [...known].map(async (assetId) => {
      const stored = await loadMediaAsset(library, orgId, assetId.toLowerCase());
      if (stored) hashes.set(assetId, stored.sha256);
    }),
  );
  const details: ErrorDetail[] = ids
    .filter((i) => !hashes.has(i.assetId))
    .map((i) => ({
      path: i.path,
      message: 'No such asset in the media library of this workspace (upload, import or render it first)',
    }));
  if (details.length > 0)
    throw new Unprocessable(
      'Media must be assets of this workspace’s media library',
      'unknown_media_asset',
      details,
    );
  return named.map(({ media }) => (media ? withAssetHashes(media, (id) => hashes.get(id)) : undefined));
}
