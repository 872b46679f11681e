// Workspace commands: create a workspace (slug reserved first, then the workspace with its owner), change its
// details (a new slug reserved first), delete it, and add, change and remove members.
import {
  slugReservationCategory,
  slugReservationDecider,
  type SlugReservationState,
} from '../../domain/workspaces/slug-reservation.js';
import {
  validateSlug,
  workspaceCategory,
  workspaceDecider,
  workspaceDeleted,
  type Actor,
  type MemberStatus,
  type WorkspaceMember,
  type WorkspaceState,
} from '../../domain/workspaces/workspace.js';
import { memberIdOf } from '../../domain/workspaces/views.js';
import { NotFound } from '../../domain/shared/errors.js';
import type { Role } from '../../domain/workspaces/roles.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteOption,
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
  options: SideWriteOption<ActiveWorkspace> & { idempotencySeed?: string } = {},
): Promise<{ workspace: ActiveWorkspace; created: boolean }> {
  validateSlug(input.slug);
  await reserveSlug(deps, input.slug, input.orgId, metadata, options.idempotencySeed);
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

/**
 * Reserves `slug` for the workspace (nothing when it holds it already); 409 `slug_taken` while another workspace
 * uses it or reserved it less than a minute ago.
 */
async function reserveSlug(
  deps: CommandDeps,
  slug: string,
  orgId: string,
  metadata: CommandMetadata,
  idempotencySeed: string | undefined,
): Promise<void> {
  await handleCommand(deps, {
    stream: slugStream(slug),
    decider: slugReservationDecider,
    command: async (state: SlugReservationState) => ({
      type: 'ReserveSlug' as const,
      slug,
      orgId,
      now: metadata.now,
      holderUsesSlug:
        state.status === 'reserved' && state.orgId !== orgId
          ? await usesSlug(deps, state.orgId, slug)
          : false,
    }),
    metadata: { ...metadata, orgId },
    eventId: deterministicEventIds(idempotencySeed && `${idempotencySeed}:slug`),
    awaitReadModels: false,
  });
}

/** Whether the workspace exists, is not deleted and has this slug now. */
async function usesSlug(deps: CommandDeps, orgId: string, slug: string): Promise<boolean> {
  const { state } = await loadAggregate(deps.eventStore, workspaceStream(orgId), workspaceDecider);
  return state.status === 'active' && state.slug === slug;
}

export async function addMember(
  deps: CommandDeps,
  orgId: string,
  member: { userId: string; role: Role; invitationId?: string },
  metadata: CommandMetadata,
): Promise<ActiveWorkspace> {
  const outcome = await handleCommand(deps, {
    stream: workspaceStream(orgId),
    decider: workspaceDecider,
    command: { type: 'AddMember', ...member, now: metadata.now },
    metadata: { ...metadata, orgId },
  });
  return outcome.state as ActiveWorkspace;
}

/** The member whose id (memberIdOf) is `memberId`, or 404: also for another workspace's member's id. */
function userIdOfMember(state: WorkspaceState, memberId: string): string {
  if (state.status === 'absent') throw new NotFound('Workspace not found');
  if (state.status === 'deleted') throw workspaceDeleted();
  const userId = Object.keys(state.members).find((id) => memberIdOf(state.orgId, id) === memberId);
  if (userId === undefined) throw new NotFound('Member not found');
  return userId;
}

export interface MemberOutcome {
  workspace: ActiveWorkspace;
  userId: string;
  member: WorkspaceMember;
}

/** The member the write will answer with goes to the side write (the idempotency record). */
export type MemberWriteOptions = SideWriteOption<MemberOutcome>;

/** Changes a member's role and/or status (`suspended`, `active`) as `actor`. */
export async function changeMember(
  deps: CommandDeps,
  orgId: string,
  input: { actor: Actor; memberId: string; role?: Role; status?: MemberStatus },
  metadata: CommandMetadata,
  options: MemberWriteOptions = {},
): Promise<MemberOutcome> {
  let userId = '';
  const answer = (state: WorkspaceState): MemberOutcome => {
    const workspace = state as ActiveWorkspace;
    const member = workspace.members[userId];
    if (!member) throw new Error(`member ${userId} missing after a change`);
    return { workspace, userId, member };
  };
  const sideWrite = options.sideWrite;
  const outcome = await handleCommand(deps, {
    stream: workspaceStream(orgId),
    decider: workspaceDecider,
    command: (state) => {
      userId = userIdOfMember(state, input.memberId);
      return {
        type: 'ChangeMember' as const,
        actor: input.actor,
        userId,
        ...(input.role !== undefined ? { role: input.role } : {}),
        ...(input.status !== undefined ? { status: input.status } : {}),
        now: metadata.now,
      };
    },
    metadata: { ...metadata, orgId },
    sideWrite: sideWrite ? (trx, o) => sideWrite(trx, answer(o.state)) : undefined,
  });
  return answer(outcome.state);
}

/** Removes a member (or the actor themselves: leaving); answers with the member as they were. */
export async function removeMember(
  deps: CommandDeps,
  orgId: string,
  input: { actor: Actor; memberId: string },
  metadata: CommandMetadata,
  options: SideWriteOption = {},
): Promise<{ userId: string }> {
  let userId = '';
  const sideWrite = options.sideWrite;
  await handleCommand(deps, {
    stream: workspaceStream(orgId),
    decider: workspaceDecider,
    command: (state) => {
      userId = userIdOfMember(state, input.memberId);
      return { type: 'RemoveMember' as const, actor: input.actor, userId, now: metadata.now };
    },
    metadata: { ...metadata, orgId },
    sideWrite: sideWrite ? (trx) => sideWrite(trx) : undefined,
  });
  return { userId };
}

/**
 * Changes name, slug and avatar; a new slug is reserved first (409 `slug_taken` when another workspace uses it).
 * The old slug is not released by an event: a slug its workspace no longer uses is free a minute later.
 */
export async function updateWorkspace(
  deps: CommandDeps,
  orgId: string,
  changes: { name?: string; slug?: string; avatarUrl?: string | null; avatarIsOwnAsset?: boolean },
  metadata: CommandMetadata,
  options: SideWriteOption<ActiveWorkspace> & { idempotencySeed?: string } = {},
): Promise<ActiveWorkspace> {
  const current = await loadAggregate(deps.eventStore, workspaceStream(orgId), workspaceDecider);
  if (
    changes.slug !== undefined &&
    current.state.status === 'active' &&
    changes.slug !== current.state.slug
  ) {
    validateSlug(changes.slug);
    // Validate the rest before taking the slug, so a refused request reserves nothing.
    workspaceDecider.decide({ type: 'UpdateWorkspace', ...changes, now: metadata.now }, current.state);
    await reserveSlug(deps, changes.slug, orgId, metadata, options.idempotencySeed);
  }
  const sideWrite = options.sideWrite;
  const outcome = await handleCommand(deps, {
    stream: workspaceStream(orgId),
    decider: workspaceDecider,
    loaded: { state: current.state, revision: current.revision },
    command: { type: 'UpdateWorkspace', ...changes, now: metadata.now },
    metadata: { ...metadata, orgId },
    sideWrite: sideWrite ? (trx, o) => sideWrite(trx, o.state as ActiveWorkspace) : undefined,
  });
  return outcome.state as ActiveWorkspace;
}

/** Soft-deletes the workspace (its history stays); only an owner may. */
export async function deleteWorkspace(
  deps: CommandDeps,
  orgId: string,
  actor: Actor,
  metadata: CommandMetadata,
  options: SideWriteOption = {},
): Promise<void> {
  const sideWrite = options.sideWrite;
  await handleCommand(deps, {
    stream: workspaceStream(orgId),
    decider: workspaceDecider,
    command: { type: 'DeleteWorkspace', actor, now: metadata.now },
    metadata: { ...metadata, orgId },
    sideWrite: sideWrite ? (trx) => sideWrite(trx) : undefined,
  });
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
  if (state.status === 'deleted') throw workspaceDeleted();
  if (state.status !== 'active') throw new NotFound('Workspace not found');
  return state;
}
