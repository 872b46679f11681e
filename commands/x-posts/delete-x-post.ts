// Deleting one of the workspace's own X posts: a published post is deleted on X, then removed here
// (`deleted_on_x`); a post not sent yet is canceled (`removed_from_schedule`); a link to a post published
// elsewhere is deleted on X with the workspace's X account. The platform call comes first, so a retry converges.
import { xCallFailure } from './x-call-failure.js';
import type { ActivePostGroup, PostState } from '../../domain/post-groups/post-group.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { Conflict, NotFound, ValidationError } from '../../domain/shared/errors.js';
import { ConnectorError, type AccountRef, type ConnectorRegistry } from '../../infra/connectors/port.js';
import type { Kysely } from 'kysely';
import type { ReadModels } from '../../projections/read-models.js';
import { findPostByExternalId, findPostGroupIdOfPost } from '../../projections/post-groups/queries.js';
import {
  deletePost,
  loadPostGroup,
  updatePost,
  type PostGroupDeps,
  type WriteOptions,
} from '../post-groups/post-group-commands.js';
import type { CommandMetadata, SideWriteOf } from '../shared/command-handler.js';
import type { IdempotencyStore } from '../shared/idempotency.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { AccountAccess } from '../social-accounts/account-access.js';

export interface XPostDeletion {
  outcome: 'deleted_on_x' | 'removed_from_schedule';
  postId: string | null;
  xPostId: string | null;
  socialAccountId: string | null;
  warnings: string[];
}

export interface XPostDeletionDeps {
  postGroups: PostGroupDeps;
  readModels: Kysely<ReadModels>;
  accounts: Pick<AccountAccess, 'resolve' | 'withTokens'>;
  connectors: ConnectorRegistry;
}

/** What the use case needs besides the deletion's own dependencies. */
export interface DeleteXPostDeps extends XPostDeletionDeps {
  idempotency: IdempotencyStore;
}

interface XPostWriteOptions {
  idempotencySeed?: string;
  /** Only a published post may be named (X automation): a post not sent yet is refused, never canceled. */
  publishedOnly?: boolean;
  /** Stores the answer with the append (the platform call came first, so the answer is known by then). */
  record?: SideWriteOf<XPostDeletion>;
}

function writeOptions(options: XPostWriteOptions, deletion: XPostDeletion): WriteOptions {
  const { idempotencySeed, record } = options;
  return {
    ...(idempotencySeed ? { idempotencySeed } : {}),
    ...(record ? { sideWrite: (trx) => record(trx, deletion) } : {}),
  };
}

export type XPostTarget = { postId: string } | { postUrl: string };

const statusUrl =
  /^https?:\/\/(?:www\.|mobile\.)?(?:x|twitter)\.com\/(?:([A-Za-z0-9_]{1,15})|i(?:\/web)?)\/status(?:es)?\/(\d{1,25})(?:[/?#].*)?$/;

/** The X post id (and the handle when the link names one) from a status link, or a 400 naming the field. */
export function parseXPostUrl(url: string): { xPostId: string; handle: string | null } {
  const match = statusUrl.exec(url.trim());
  if (!match)
    throw new ValidationError('Not a link to an X post', undefined, [
      { path: 'postUrl', message: 'expected https://x.com/<handle>/status/<id>' },
    ]);
  return { xPostId: match[2]!, handle: match[1] ?? null };
}

async function resolveAccount(
  deps: XPostDeletionDeps,
  orgId: string,
  socialAccountId: string | null,
): Promise<AccountRef> {
  const resolved = await deps.accounts.resolve({ orgId, platform: 'x', socialAccountId });
  if (resolved.ok) return resolved.account;
  if (resolved.reason === 'not_found' && socialAccountId)
    throw new ValidationError('Unknown social account', undefined, [
      { path: 'socialAccountId', message: 'not an X account of this workspace' },
    ]);
  throw new Conflict(resolved.message, `account_${resolved.reason}`);
}

async function deleteOnX(deps: XPostDeletionDeps, account: AccountRef, xPostId: string): Promise<boolean> {
  const connector = deps.connectors.get('x');
  try {
    const result = await deps.accounts.withTokens(account, (tokens) =>
      connector.delete(
        {
          account,
          tokens,
          fetchMedia: () => Promise.reject(new ConnectorError('permanent', 'no media is read when deleting')),
        },
        xPostId,
      ),
    );
    return result.kind === 'deleted';
  } catch (error) {
    throw xCallFailure(error, 'deletion');
  }
}

export interface DeleteXPostInput {
  orgId: string;
  target: XPostTarget;
  /** The X account to delete with, for a link to a post published elsewhere. */
  socialAccountId: string | null;
}

/**
 * Tool: delete_x_post. Needs posts:delete (an assistant, the posts:delete scope). The platform call comes before
 * the append, so the answer recorded for the key is known by then; a retry converges.
 */
export async function deleteXPost(
  deps: DeleteXPostDeps,
  caller: Caller,
  input: DeleteXPostInput,
  request: WriteRequest,
): Promise<Written<XPostDeletion>> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:delete', scope: 'posts:delete' });
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const { deletion } = await deleteWith(deps, input, metadata, {
      ...(idempotencySeed ? { idempotencySeed } : {}),
      ...(record ? { record } : {}),
    });
    return deletion;
  });
}

/**
 * Deletes a published post of the workspace on X and removes it here, as `deleteXPost` does for a `postId` (X
 * automation's deletions); a post that is not published is refused (409 `post_not_published`), never canceled.
 */
export async function deletePublishedXPost(
  deps: XPostDeletionDeps,
  input: { orgId: string; postId: string },
  metadata: CommandMetadata,
): Promise<XPostDeletion> {
  const { deletion } = await deleteWith(
    deps,
    { orgId: input.orgId, target: { postId: input.postId }, socialAccountId: null },
    metadata,
    { publishedOnly: true },
  );
  return deletion;
}

async function deleteWith(
  deps: XPostDeletionDeps,
  input: DeleteXPostInput,
  metadata: CommandMetadata,
  options: XPostWriteOptions,
): Promise<{ deletion: XPostDeletion; appended: boolean }> {
  const { orgId } = input;
  let own: { postId: string; groupId: string } | null = null;
  let linked: { xPostId: string; handle: string | null } | null = null;
  if ('postId' in input.target) {
    const groupId = await findPostGroupIdOfPost(deps.readModels, orgId, input.target.postId);
    if (!groupId) throw new NotFound('Post not found');
    own = { postId: input.target.postId, groupId };
  } else {
    linked = parseXPostUrl(input.target.postUrl);
    const row = await findPostByExternalId(deps.readModels, orgId, 'x', linked.xPostId);
    if (row) own = { postId: row.id, groupId: row.group_id };
  }

  if (!own) {
    // A post published elsewhere (another app, the X website): deleted with the workspace's X account.
    const account = await resolveAccount(deps, orgId, input.socialAccountId);
    const warnings = ['The post was not published through this workspace; it was deleted on X only'];
    if (
      linked!.handle &&
      account.accountHandle &&
      linked!.handle.toLowerCase() !== account.accountHandle.toLowerCase()
    )
      warnings.push(
        `The link names @${linked!.handle}, but the post was deleted with @${account.accountHandle}`,
      );
    const deleted = await deleteOnX(deps, account, linked!.xPostId);
    if (!deleted) throw new NotFound('X has no such post for this account');
    return {
      deletion: {
        outcome: 'deleted_on_x',
        postId: null,
        xPostId: linked!.xPostId,
        socialAccountId: account.id,
        warnings,
      },
      appended: false,
    };
  }

  const { group } = await loadPostGroup(deps.postGroups, orgId, own.groupId);
  const post = group.posts.find((p) => p.id === own.postId);
  if (!post) throw new NotFound('Post not found');
  if (post.platform !== 'x')
    throw new ValidationError('Not an X post', undefined, [
      {
        path: 'postId' in input.target ? 'postId' : 'postUrl',
        message: `the post is a ${post.platform} post`,
      },
    ]);
  if (options.publishedOnly && post.status !== 'published')
    throw new Conflict(`The post is ${post.status}, not published on X`, 'post_not_published');
  return post.status === 'published'
    ? deletePublished(deps, group, post, input.socialAccountId, metadata, options)
    : removeFromSchedule(deps, group, post, metadata, options);
}

async function deletePublished(
  deps: XPostDeletionDeps,
  group: ActivePostGroup,
  post: PostState,
  socialAccountId: string | null,
  metadata: CommandMetadata,
  options: XPostWriteOptions,
): Promise<{ deletion: XPostDeletion; appended: boolean }> {
  const warnings: string[] = [];
  const account = await resolveAccount(deps, group.orgId, post.socialAccountId ?? socialAccountId);
  if (socialAccountId && socialAccountId !== account.id)
    warnings.push('The post was published with another account; that account was used to delete it');
  const xPostId = post.publishedExternalId!;
  const deleted = await deleteOnX(deps, account, xPostId);
  if (!deleted) warnings.push('The post was already gone from X; it was removed here');
  const deletion: XPostDeletion = {
    outcome: 'deleted_on_x',
    postId: post.id,
    xPostId,
    socialAccountId: account.id,
    warnings,
  };
  const result = await deletePost(
    deps.postGroups,
    { orgId: group.orgId, groupId: group.id, postId: post.id },
    metadata,
    { ...writeOptions(options, deletion), deletedOnPlatform: { externalId: xPostId } },
  );
  return { deletion, appended: result.appended };
}

async function removeFromSchedule(
  deps: XPostDeletionDeps,
  group: ActivePostGroup,
  post: PostState,
  metadata: CommandMetadata,
  options: XPostWriteOptions,
): Promise<{ deletion: XPostDeletion; appended: boolean }> {
  if (post.status === 'publishing' || post.status === 'awaiting_platform')
    throw new Conflict('The post is being published; try again when it has finished', 'post_publishing');
  const warnings: string[] = [];
  let appended = false;
  const deletion: XPostDeletion = {
    outcome: 'removed_from_schedule',
    postId: post.id,
    xPostId: null,
    socialAccountId: post.socialAccountId,
    warnings,
  };
  if (post.status === 'canceled') warnings.push('The post was already canceled');
  else {
    const result = await updatePost(
      deps.postGroups,
      { orgId: group.orgId, groupId: group.id, postId: post.id },
      { changes: {}, status: 'canceled' },
      metadata,
      { ...writeOptions(options, deletion), maySchedule: false },
    );
    appended = result.appended;
  }
  return { deletion, appended };
}
