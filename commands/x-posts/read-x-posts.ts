// Reading X posts through the X connector with the workspace's X account: one post (Tool: get_x_post) or its
// conversation (Tool: get_x_thread). Each post returned costs `x_post_read` credits, reserved for the most the read
// may return before X is asked and charged after it for what it returned (a failed read charges nothing);
// a retry with the same Idempotency-Key answers the first read and charges nothing more.
import { xCallFailure } from './x-call-failure.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  Conflict,
  InvalidFields,
  NotFound,
  PaymentRequired,
  ServiceUnavailable,
} from '../../domain/shared/errors.js';
import {
  ConnectorError,
  type AccountRef,
  type CallContext,
  type ConnectorRegistry,
  type PlatformConnector,
} from '../../infra/connectors/port.js';
import type { XPost } from '../../infra/connectors/x-reads.js';
import type { CreditsService, SpendOutcome } from '../billing/credits.js';
import type { IdempotencyStore } from '../shared/idempotency.js';
import { newId } from '../shared/ids.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { AccountAccess } from '../social-accounts/account-access.js';

/** The credit cost key of one post returned by a read (config/billing.json). */
export const X_POST_READ = 'x_post_read';
export const DEFAULT_THREAD_LIMIT = 25;
export const MAX_THREAD_LIMIT = 100;

export interface XReadDeps {
  idempotency: IdempotencyStore;
  accounts: Pick<AccountAccess, 'resolve' | 'withTokens'>;
  connectors: ConnectorRegistry;
  credits: Pick<CreditsService, 'withCredits'>;
  /** Credits per post returned (`x_post_read`). */
  postCost: number;
}

export interface XReadUsage {
  postsReturned: number;
  postsCharged: number;
  creditsUsed: number;
}

export interface XPostRead {
  post: XPost;
  usage: XReadUsage;
}

export interface XThreadRead {
  post: XPost;
  root: XPost | null;
  thread: XPost[];
  replies: XPost[];
  hasMore: boolean;
  usage: XReadUsage;
}

interface ReadInput {
  orgId: string;
  /** A link to the post (x.com or twitter.com status link) or its id. */
  post: string;
  includeMedia?: boolean;
  /** The X account to read with, when the workspace has several. */
  socialAccountId?: string;
}

export type ReadXPostInput = ReadInput;

export interface ReadXThreadInput extends ReadInput {
  includeReplies?: boolean;
  limit?: number;
}

const statusLink =
  /^https?:\/\/(?:www\.|mobile\.)?(?:x|twitter)\.com\/(?:[A-Za-z0-9_]{1,15}|i(?:\/web)?)\/status(?:es)?\/(\d{1,25})(?:[/?#].*)?$/i;

/** The X post id of a link or an id; a 400 naming `post` otherwise. */
export function xPostIdOf(post: string): string {
  const text = post.trim();
  if (/^\d{1,25}$/.test(text)) return text;
  const match = statusLink.exec(text);
  if (match) return match[1]!;
  throw new InvalidFields('Not a link to an X post or a post id', [
    { path: 'post', message: 'expected https://x.com/<handle>/status/<id> or the post id' },
  ]);
}

const reading = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

/** What the caller gets when X fails a read (xCallFailure). */
export const xReadFailure = (error: unknown): Error => xCallFailure(error, 'read');

async function resolveAccount(
  deps: XReadDeps,
  orgId: string,
  socialAccountId: string | null,
): Promise<AccountRef> {
  const resolved = await deps.accounts.resolve({ orgId, platform: 'x', socialAccountId });
  if (resolved.ok) return resolved.account;
  if (resolved.reason === 'not_found' && socialAccountId)
    throw new InvalidFields('Unknown social account', [
      { path: 'socialAccountId', message: 'not an X account of this workspace' },
    ]);
  throw new Conflict(resolved.message, `account_${resolved.reason}`);
}

type Reader = Required<Pick<PlatformConnector, 'readXPosts' | 'readXConversation'>>;

function readerOf(deps: XReadDeps): Reader {
  const connector = deps.connectors.get('x');
  if (!connector.readXPosts || !connector.readXConversation)
    throw new ServiceUnavailable('Reading X posts is not available in this build', 'x_reads_unavailable');
  return {
    readXPosts: (context, request) => connector.readXPosts!(context, request),
    readXConversation: (context, request) => connector.readXConversation!(context, request),
  };
}

const noMedia = async (): Promise<never> => {
  throw new ConnectorError('permanent', 'no media is uploaded when reading');
};

/** Runs X calls with the account's tokens (refreshed as needed); X's failures become the caller's errors. */
function onX(deps: XReadDeps, account: AccountRef) {
  return async <T>(call: (context: CallContext) => Promise<T>): Promise<T> => {
    try {
      return await deps.accounts.withTokens(account, (tokens) =>
        call({ account, tokens, fetchMedia: noMedia }),
      );
    } catch (error) {
      throw xReadFailure(error);
    }
  };
}

async function onePost(
  x: <T>(call: (context: CallContext) => Promise<T>) => Promise<T>,
  reader: Reader,
  id: string,
  includeMedia: boolean,
): Promise<XPost | null> {
  const result = await x((context) => reader.readXPosts(context, { ids: [id], includeMedia }));
  return result.posts.find((p) => p.id === id) ?? null;
}

function usageOf(returned: number, charge: SpendOutcome): XReadUsage {
  // A charge answered from before (a retry of a read paid for already) charged nothing now.
  return charge.replayed
    ? { postsReturned: returned, postsCharged: 0, creditsUsed: 0 }
    : { postsReturned: returned, postsCharged: returned, creditsUsed: charge.creditsUsed };
}

/** The credits run out: say what the read costs. */
function costly(error: unknown, deps: XReadDeps, most: number): unknown {
  if (error instanceof PaymentRequired && error.code === 'fair_use_limit')
    return new PaymentRequired(
      `This read may return up to ${most} post${most === 1 ? '' : 's'} at ${deps.postCost} credit${
        deps.postCost === 1 ? '' : 's'
      } each; ${error.message}`,
      'fair_use_limit',
    );
  return error;
}

async function paidRead<T>(
  deps: XReadDeps,
  caller: Caller,
  orgId: string,
  options: {
    seed: string | undefined;
    requestHash: string | undefined;
    correlationId: string;
    most: number;
    metadata: Record<string, unknown>;
  },
  read: () => Promise<T>,
  returned: (result: T) => number,
): Promise<{ result: T; charge: SpendOutcome }> {
  try {
    return await deps.credits.withCredits(
      {
        orgId,
        // One charge per Idempotency-Key and request: a retry after a lost answer is charged once.
        key: `x-read:${newId(options.seed ? [options.seed, options.requestHash ?? '', 'x-read'] : undefined)}`,
        actionKey: X_POST_READ,
        quantity: options.most,
        feature: 'x_reads',
        provider: 'x',
        metadata: options.metadata,
      },
      read,
      {
        actual: (result) => {
          const n = returned(result);
          return {
            credits: n * deps.postCost,
            quantity: n,
            metadata: { ...options.metadata, postsReturned: n },
          };
        },
        context: {
          actor: caller.kind === 'assistant' ? `assistant:${caller.clientId}` : caller.userId,
          userId: caller.userId,
          correlationId: options.correlationId,
        },
      },
    );
  } catch (error) {
    throw costly(error, deps, options.most);
  }
}

/**
 * Tool: get_x_post. Needs posts:draft (an assistant, posts:write): reading is research for drafting, and it spends
 * credits. One post returned, one `x_post_read` charged; nothing when the post is not there or X fails.
 */
export async function readXPost(
  deps: XReadDeps,
  caller: Caller,
  input: ReadXPostInput,
  request: WriteRequest,
): Promise<Written<XPostRead>> {
  authorize(caller, reading(input.orgId));
  const id = xPostIdOf(input.post);
  const includeMedia = input.includeMedia ?? false;
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    const account = await resolveAccount(deps, input.orgId, input.socialAccountId ?? null);
    const reader = readerOf(deps);
    const x = onX(deps, account);
    const { result, charge } = await paidRead(
      deps,
      caller,
      input.orgId,
      {
        seed: idempotencySeed,
        requestHash: request.idempotency?.requestHash,
        correlationId: request.correlationId,
        most: 1,
        metadata: { xPostId: id, socialAccountId: account.id, read: 'post' },
      },
      async () => {
        const post = await onePost(x, reader, id, includeMedia);
        if (!post)
          throw new NotFound('X has no such post (deleted, hidden, or never there)', 'x_post_not_found');
        return post;
      },
      () => 1,
    );
    return { post: result, usage: usageOf(1, charge) };
  });
}

/** Distinct posts an answer holds: the post, the root, the thread and the replies (a post shown twice counts once). */
export function postsIn(read: Pick<XThreadRead, 'post' | 'root' | 'thread' | 'replies'>): number {
  const ids = new Set<string>([read.post.id]);
  if (read.root) ids.add(read.root.id);
  for (const p of [...read.thread, ...read.replies]) ids.add(p.id);
  return ids.size;
}

/**
 * Tool: get_x_thread. The post, its conversation's root, the root author's own thread oldest first and, with
 * includeReplies, everyone else's replies, at most `limit` of thread and replies together. Credits are reserved for
 * the most it may return (limit + 2) and charged for the distinct posts it returned.
 */
export async function readXThread(
  deps: XReadDeps,
  caller: Caller,
  input: ReadXThreadInput,
  request: WriteRequest,
): Promise<Written<XThreadRead>> {
  authorize(caller, reading(input.orgId));
  const id = xPostIdOf(input.post);
  const limit = input.limit ?? DEFAULT_THREAD_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_THREAD_LIMIT)
    throw new InvalidFields('Invalid limit', [{ path: 'limit', message: `1 to ${MAX_THREAD_LIMIT}` }]);
  const includeMedia = input.includeMedia ?? false;
  const includeReplies = input.includeReplies ?? false;
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    const account = await resolveAccount(deps, input.orgId, input.socialAccountId ?? null);
    const reader = readerOf(deps);
    const x = onX(deps, account);
    const { result, charge } = await paidRead(
      deps,
      caller,
      input.orgId,
      {
        seed: idempotencySeed,
        requestHash: request.idempotency?.requestHash,
        correlationId: request.correlationId,
        most: limit + 2,
        metadata: { xPostId: id, socialAccountId: account.id, read: 'thread' },
      },
      async () => {
        const post = await onePost(x, reader, id, includeMedia);
        if (!post)
          throw new NotFound('X has no such post (deleted, hidden, or never there)', 'x_post_not_found');
        const rootId = post.conversationId ?? post.id;
        // The root may be gone while the conversation goes on: then it is null.
        const root = rootId === post.id ? post : await onePost(x, reader, rootId, includeMedia);
        const conversation = await x((context) =>
          reader.readXConversation(context, {
            conversationId: rootId,
            authorId: root?.author?.id ?? null,
            includeReplies,
            includeMedia,
            limit,
          }),
        );
        return { post, root, ...conversation };
      },
      postsIn,
    );
    return { ...result, usage: usageOf(postsIn(result), charge) };
  });
}
