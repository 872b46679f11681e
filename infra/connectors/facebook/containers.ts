// Meta's two-step publishing by media container (Instagram and Threads): a container is created, processed
// by the platform, then published; this moves a container (or a carousel's children) one step further.
import { ConnectorError, type CallContext, type PublishOutcome, type StatusCheck } from '../port.js';
import { findByText, form, graphTime, isGraphNotFound, type GraphClient } from './graph.js';

export type ContainerState =
  | { kind: 'finished' }
  | { kind: 'in_progress' }
  | { kind: 'published' }
  | { kind: 'failed'; message: string };

/** What the platform still has to do before a post exists: one container, or carousel children to wrap. */
export type PendingContainer = { kind: 'container'; id: string } | { kind: 'carousel'; children: string[] };

export interface ContainerApi {
  state(containerId: string): Promise<ContainerState>;
  createCarousel(children: string[]): Promise<string>;
  /** The publish call proper: the only step that makes something visible. */
  publish(containerId: string): Promise<string>;
}

export type ContainerStep =
  | { kind: 'published'; mediaId: string }
  | { kind: 'pending'; pending: PendingContainer }
  | { kind: 'failed'; message: string }
  /** Published by an earlier call whose answer was lost; the caller looks the post up. */
  | { kind: 'already_published' }
  | { kind: 'not_found' };

export function encodePending(pending: PendingContainer): string {
  return pending.kind === 'container' ? pending.id : `carousel:${pending.children.join(',')}`;
}

export function decodePending(reference: string): PendingContainer {
  if (reference.startsWith('carousel:'))
    return { kind: 'carousel', children: reference.slice('carousel:'.length).split(',').filter(Boolean) };
  return { kind: 'container', id: reference };
}

/**
 * Publishes what is ready, reports what is not. A carousel whose children are done gets its container made
 * here; if that container is still processing, the answer stays `pending` on the children and the next step
 * makes another (an unpublished container is never visible and expires after a day).
 */
export async function advanceContainer(api: ContainerApi, pending: PendingContainer): Promise<ContainerStep> {
  try {
    let containerId: string;
    if (pending.kind === 'carousel') {
      for (const child of pending.children) {
        const state = await api.state(child);
        if (state.kind === 'failed') return { kind: 'failed', message: state.message };
        if (state.kind === 'in_progress') return { kind: 'pending', pending };
      }
      containerId = await api.createCarousel(pending.children);
    } else containerId = pending.id;
    const state = await api.state(containerId);
    switch (state.kind) {
      case 'failed':
        return { kind: 'failed', message: state.message };
      case 'in_progress':
        return {
          kind: 'pending',
          pending: pending.kind === 'carousel' ? pending : { kind: 'container', id: containerId },
        };
      case 'published':
        return { kind: 'already_published' };
      case 'finished':
        return { kind: 'published', mediaId: await api.publish(containerId) };
      default: {
        const never: never = state;
        throw new ConnectorError('permanent', `unexpected container state ${JSON.stringify(never)}`);
      }
    }
  } catch (error) {
    if (isGraphNotFound(error)) return { kind: 'not_found' };
    throw error;
  }
}

/** Graph's container status words (`status` on Threads, `status_code` on Instagram). */
export function containerState(
  platform: string,
  status: string | undefined,
  message: string | undefined,
): ContainerState {
  switch (status) {
    case 'FINISHED':
      return { kind: 'finished' };
    case 'PUBLISHED':
      return { kind: 'published' };
    case 'ERROR':
      return {
        kind: 'failed',
        message: `${platform}: the media could not be processed (${message ?? 'no reason given'})`,
      };
    case 'EXPIRED':
      return { kind: 'failed', message: `${platform}: the media container expired before it was published` };
    // IN_PROGRESS, and any word Meta adds later: keep polling until the pending timeout decides.
    case 'IN_PROGRESS':
    case undefined:
    default:
      return { kind: 'in_progress' };
  }
}

/** How one platform names its container edges and fields (Instagram and Threads differ only in these). */
export interface ContainerPlatform {
  platform: string;
  graph: GraphClient;
  /** Containers are created, and the account's posts listed, on `<user>/<mediaEdge>`. */
  mediaEdge: string;
  /** Containers are published on `<user>/<publishEdge>`. */
  publishEdge: string;
  /** The container field holding its status word, and the one holding the reason for an error. */
  statusField: string;
  errorField: string;
  /** The field of a container and of a listed post that holds the post's text. */
  textField: string;
  /** What a listed post without text counts as when matching an unconfirmed post's text (null: never matches). */
  missingText: string | null;
  /** The account's page, for a published post whose permalink cannot be read. */
  profileUrl(handle: string | null): string;
  /** How long to wait before polling a container again. */
  pendingCheckMs: number;
}

/** The container steps of one account, for advanceContainer. */
export function containerApi(p: ContainerPlatform, context: CallContext, text: string): ContainerApi {
  const userId = context.account.accountExternalId;
  const token = context.tokens.accessToken;
  return {
    async state(id) {
      const body = await p.graph.get<Record<string, string | undefined>>(
        id,
        token,
        { fields: `${p.statusField},${p.errorField}` },
        context.signal,
      );
      return containerState(p.platform, body[p.statusField], body[p.errorField]);
    },
    async createCarousel(children) {
      return createContainer(p, context, {
        media_type: 'CAROUSEL',
        children: children.join(','),
        [p.textField]: text || undefined,
      });
    },
    async publish(id) {
      const published = await p.graph.post<{ id: string }>(
        `${userId}/${p.publishEdge}`,
        token,
        form({ creation_id: id }),
        'create',
        context.signal,
      );
      return published.id;
    },
  };
}

/** Containers are invisible until published, so creating one again after a lost answer is harmless. */
export async function createContainer(
  p: ContainerPlatform,
  context: CallContext,
  fields: Record<string, string | boolean | undefined>,
): Promise<string> {
  const created = await p.graph.post<{ id: string }>(
    `${context.account.accountExternalId}/${p.mediaEdge}`,
    context.tokens.accessToken,
    form(fields),
    'read',
    context.signal,
  );
  return created.id;
}

export async function containerPermalink(
  p: ContainerPlatform,
  context: CallContext,
  mediaId: string,
): Promise<string> {
  try {
    const body = await p.graph.get<{ permalink?: string }>(
      mediaId,
      context.tokens.accessToken,
      { fields: 'permalink' },
      context.signal,
    );
    if (body.permalink) return body.permalink;
  } catch {
    // the post exists; a failed lookup must not read as a failed publish
  }
  return p.profileUrl(context.account.accountHandle);
}

/** The account's post with this text since the attempt started (one whose publish answer was lost). */
export async function findRecentPost(
  p: ContainerPlatform,
  context: CallContext,
  contentText: string,
  attemptStartedAt: string,
): Promise<StatusCheck> {
  const since = new Date(attemptStartedAt);
  const body = await p.graph.get<{ data?: Array<Record<string, string | undefined> & { id: string }> }>(
    `${context.account.accountExternalId}/${p.mediaEdge}`,
    context.tokens.accessToken,
    {
      fields: `id,${p.textField},timestamp,permalink`,
      since: String(Math.floor(since.getTime() / 1000)),
      limit: '50',
    },
    context.signal,
  );
  const found = findByText(
    (body.data ?? []).map((post) => ({
      id: post.id,
      permalink: post.permalink,
      text: post[p.textField] ?? p.missingText,
      createdAt: graphTime(post.timestamp),
    })),
    contentText,
    since,
  );
  if (!found) return { kind: 'not_found' };
  return {
    kind: 'published',
    externalId: found.id,
    url: found.permalink ?? (await containerPermalink(p, context, found.id)),
  };
}

/** A published container as the post it made, once what follows the post has run. */
async function publishedPost(
  p: ContainerPlatform,
  context: CallContext,
  mediaId: string,
  after: (mediaId: string) => Promise<void>,
): Promise<{ kind: 'published'; externalId: string; url: string }> {
  await after(mediaId);
  return { kind: 'published', externalId: mediaId, url: await containerPermalink(p, context, mediaId) };
}

/**
 * A publish call's answer from the first step: `published` runs what follows the post (Threads' replies) and
 * names it; a container made a moment ago is neither gone nor published by anyone else, so those answers
 * leave the outcome unknown.
 */
export async function publishOutcome(
  p: ContainerPlatform,
  step: ContainerStep,
  created: PendingContainer,
  then: { published: (mediaId: string) => Promise<void>; reference: (pending: PendingContainer) => string },
  context: CallContext,
): Promise<PublishOutcome> {
  switch (step.kind) {
    case 'published':
      return publishedPost(p, context, step.mediaId, then.published);
    case 'pending':
      return { kind: 'pending', reference: then.reference(step.pending), checkAfterMs: p.pendingCheckMs };
    case 'failed':
      throw new ConnectorError('permanent', step.message);
    case 'already_published':
    case 'not_found':
      throw new ConnectorError(
        'unknown_outcome',
        `${p.platform}: container ${encodePending(created)} answered ${step.kind}`,
      );
    default: {
      const never: never = step;
      throw new ConnectorError('permanent', `${p.platform}: unexpected step ${JSON.stringify(never)}`);
    }
  }
}

/** A status check's answer from a later step; a container published earlier is looked up by its text. */
export async function stepStatus(
  p: ContainerPlatform,
  step: ContainerStep,
  then: { published: (mediaId: string) => Promise<void>; lookup: () => Promise<StatusCheck> },
  context: CallContext,
): Promise<StatusCheck> {
  switch (step.kind) {
    case 'published':
      return publishedPost(p, context, step.mediaId, then.published);
    case 'pending':
      return { kind: 'pending', checkAfterMs: p.pendingCheckMs };
    case 'failed':
      return { kind: 'failed', message: step.message };
    case 'not_found':
      return { kind: 'not_found' };
    case 'already_published': {
      const found = await then.lookup();
      // Published, but not listed yet: ask again rather than call it missing.
      return found.kind === 'not_found' ? { kind: 'pending', checkAfterMs: p.pendingCheckMs } : found;
    }
    default: {
      const never: never = step;
      throw new ConnectorError('permanent', `${p.platform}: unexpected step ${JSON.stringify(never)}`);
    }
  }
}
