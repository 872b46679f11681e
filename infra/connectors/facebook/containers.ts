// Meta's two-step publishing by media container (Instagram and Threads): a container is created, processed
// by the platform, then published; this moves a container (or a carousel's children) one step further.
import { ConnectorError } from '../port.js';
import { isGraphNotFound } from './graph.js';

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
