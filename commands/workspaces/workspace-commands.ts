// Workspace commands: create a workspace (slug reserved first, then the workspace with its owner) and add members.
import {
  slugReservationCategory,
  slugReservationDecider,
  type SlugReservationState,
} from '../../domain/workspaces/slug-reservation.js';
import {
  validateSlug,
  workspaceCategory,
  workspaceDecider,
  type WorkspaceState,
} from '../../domain/workspaces/workspace.js';
import { NotFound } from '../../domain/shared/errors.js';
import type { Role } from '../../domain/workspaces/roles.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
} from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';

export type ActiveWorkspace = Extract<WorkspaceState, { status: 'active' }>;

export const workspaceStream = (orgId: string) => streamName(workspaceCategory, orgId);
export const slugStream = (slug: string) => streamName(slugReservationCategory, slug);

export interface CreateWorkspaceInput {
  orgId: string;
  slug: string;
  name: string;
  ownerId: string;
}

export async function createWorkspace(
  deps: CommandDeps,
  input: CreateWorkspaceInput,
  metadata: CommandMetadata,
  options: {
    sideWrite?: (trx: unknown, workspace: ActiveWorkspace) => Promise<void>;
    idempotencySeed?: string;
  } = {},
): Promise<{ workspace: ActiveWorkspace; created: boolean }> {
  validateSlug(input.slug);
  await handleCommand(deps, {
    stream: slugStream(input.slug),
    decider: slugReservationDecider,
    command: async (state: SlugReservationState) => ({
      type: 'ReserveSlug' as const,
      slug: input.slug,
      orgId: input.orgId,
      now: metadata.now,
      holderExists:
        state.status === 'reserved' && state.orgId !== input.orgId
          ? (await deps.eventStore.streamRevision(workspaceStream(state.orgId))) !== null
          : false,
    }),
    metadata: { ...metadata, orgId: input.orgId },
    eventId: deterministicEventIds(options.idempotencySeed && `${options.idempotencySeed}:slug`),
    awaitReadModels: false,
  });
  const outcome = await handleCommand(deps, {
    stream: workspaceStream(input.orgId),
    decider: workspaceDecider,
    // A new id names no stream yet, so the first decision is taken without reading one; should the stream exist
    // after all (a retried request's id derived from its key), the append's expected revision refuses it and
    // the handler decides again against what is there.
    loaded: { state: workspaceDecider.initialState, revision: null },
    command: { type: 'CreateWorkspace', ...input, now: metadata.now },
    metadata: { ...metadata, orgId: input.orgId },
    eventId: deterministicEventIds(options.idempotencySeed && `${options.idempotencySeed}:workspace`),
    sideWrite: options.sideWrite
      ? (trx, o) => options.sideWrite!(trx, o.state as ActiveWorkspace)
      : undefined,
  });
  return { workspace: outcome.state as ActiveWorkspace, created: outcome.events.length > 0 };
}

export async function addMember(
  deps: CommandDeps,
  orgId: string,
  member: { userId: string; role: Role },
  metadata: CommandMetadata,
): Promise<ActiveWorkspace> {
  const outcome = await handleCommand(deps, {
    stream: workspaceStream(orgId),
    decider: workspaceDecider,
    command: { type: 'AddMember', userId: member.userId, role: member.role, now: metadata.now },
    metadata: { ...metadata, orgId },
  });
  return outcome.state as ActiveWorkspace;
}

/** The workspace holding a slug, read from the event store (the source of truth), or null. */
export async function findWorkspaceBySlug(
  deps: Pick<CommandDeps, 'eventStore'>,
  slug: string,
): Promise<ActiveWorkspace | null> {
  const reservation = await loadAggregate(deps.eventStore, slugStream(slug), slugReservationDecider);
  if (reservation.state.status !== 'reserved') return null;
  const workspace = await loadAggregate(
    deps.eventStore,
    workspaceStream(reservation.state.orgId),
    workspaceDecider,
  );
  return workspace.state.status === 'active' ? workspace.state : null;
}

export async function loadWorkspace(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
): Promise<ActiveWorkspace> {
  const { state } = await loadAggregate(deps.eventStore, workspaceStream(orgId), workspaceDecider);
  if (state.status !== 'active') throw new NotFound('Workspace not found');
  return state;
}
