// Workspace use cases through the write pipeline: any signed-in member creates a workspace and becomes its owner
// (assistants, connected to one workspace, may not); owners and admins change it and its members; the owner
// deletes it. Assistants may do none of these administrative writes.
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { Forbidden } from '../../domain/shared/errors.js';
import type { Role } from '../../domain/workspaces/roles.js';
import {
  memberUpdateView,
  workspaceView,
  type MemberUpdateView,
  type WorkspaceView,
} from '../../domain/workspaces/views.js';
import type { Actor, MemberStatus } from '../../domain/workspaces/workspace.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import { assetKeyOf, checkUploadedImage, logoPrefix } from '../shared/image-uploads.js';
import { newId } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import {
  changeMember,
  createWorkspace as createWorkspaceCommand,
  deleteWorkspace as deleteWorkspaceCommand,
  removeMember as removeMemberCommand,
  updateWorkspace as updateWorkspaceCommand,
  type MemberOutcome,
} from './workspace-commands.js';

/** The slug is reserved first, then the workspace created with the caller as owner; a taken slug is a 409. */
export async function createWorkspace(
  deps: WriteDeps,
  caller: Caller,
  input: { name: string; slug: string },
  request: WriteRequest,
): Promise<Written<WorkspaceView>> {
  authorize(caller, { scope: null });
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    // With a key, the id comes from it: a retry reserves the same slug for the same workspace and completes.
    const orgId = newId(idempotencySeed ? [idempotencySeed, 'workspace'] : undefined);
    const { workspace } = await createWorkspaceCommand(
      deps.commands,
      { orgId, slug: input.slug, name: input.name, ownerId: caller.userId },
      metadata,
      {
        idempotencySeed,
        // Only with an Idempotency-Key is the answer stored with the append (which otherwise needs no
        // transaction of its own).
        ...(record ? { sideWrite: (trx, w) => record(trx, workspaceView(w)) } : {}),
      },
    );
    return workspaceView(workspace);
  });
}

/** The caller as the workspace decider knows them: a member acting with their current role. */
function actorOf(caller: Caller): Actor {
  if (caller.role === null) throw new Forbidden('This caller does not act in a workspace');
  return { userId: caller.userId, role: caller.role };
}

export interface UpdateWorkspaceInput {
  orgId: string;
  /** Omitted fields stay; `avatarUrl: null` clears the avatar. */
  changes: { name?: string; slug?: string; avatarUrl?: string | null };
}

/** Owners and admins change the name, slug and avatar; a slug another workspace uses is a 409 `slug_taken`. */
export async function updateWorkspace(
  deps: WriteDeps & { storage: ObjectStorage; publicBaseUrl: string },
  caller: Caller,
  input: UpdateWorkspaceInput,
  request: WriteRequest,
): Promise<Written<WorkspaceView>> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:manage', scope: null });
  // A logo uploaded here is named by its asset URL: it must be this workspace's upload, and pass the image
  // checks, before it is shown (any other avatar must be an https link, which the decider checks).
  const { avatarUrl } = input.changes;
  const assetKey = avatarUrl ? assetKeyOf(deps.publicBaseUrl, avatarUrl) : null;
  if (assetKey !== null) await checkUploadedImage(deps.storage, logoPrefix(input.orgId), assetKey);
  const changes = { ...input.changes, ...(assetKey !== null ? { avatarIsOwnAsset: true } : {}) };
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const workspace = await updateWorkspaceCommand(deps.commands, input.orgId, changes, metadata, {
      ...(idempotencySeed ? { idempotencySeed } : {}),
      ...(record ? { sideWrite: (trx, w) => record(trx, workspaceView(w)) } : {}),
    });
    return workspaceView(workspace);
  });
}

/** The owner deletes the workspace (soft: its history stays); every later call for it answers 410. */
export async function deleteWorkspace(
  deps: WriteDeps,
  caller: Caller,
  input: { orgId: string },
  request: WriteRequest,
): Promise<Written<null>> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:delete', scope: null });
  const actor = actorOf(caller);
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    await deleteWorkspaceCommand(
      deps.commands,
      input.orgId,
      actor,
      metadata,
      record ? { sideWrite: (trx) => record(trx, null) } : {},
    );
    return null;
  });
}

export interface UpdateMemberInput {
  orgId: string;
  memberId: string;
  role?: Role;
  status?: MemberStatus;
}

/**
 * Owners and admins change a member's role or suspend and reactivate them; only an owner touches the owner role,
 * and the last active owner can be neither demoted nor suspended (409 `last_owner`).
 */
export async function updateMember(
  deps: WriteDeps,
  caller: Caller,
  input: UpdateMemberInput,
  request: WriteRequest,
): Promise<Written<MemberUpdateView>> {
  authorize(caller, { orgId: input.orgId, permission: 'members:manage', scope: null });
  const actor = actorOf(caller);
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const view = (o: MemberOutcome) => memberUpdateView(input.orgId, o.userId, o.member);
    const outcome = await changeMember(
      deps.commands,
      input.orgId,
      {
        actor,
        memberId: input.memberId,
        ...(input.role !== undefined ? { role: input.role } : {}),
        ...(input.status !== undefined ? { status: input.status } : {}),
      },
      metadata,
      record ? { sideWrite: (trx, o) => record(trx, view(o)) } : {},
    );
    return view(outcome);
  });
}

/**
 * Owners and admins remove a member; any member may remove themselves (leave). Only an owner removes an owner, and
 * the last active owner stays (409 `last_owner`).
 */
export async function removeMember(
  deps: WriteDeps,
  caller: Caller,
  input: { orgId: string; memberId: string },
  request: WriteRequest,
): Promise<Written<null>> {
  // Whether the role allows it depends on whom it removes (leaving needs no permission): the decider checks.
  authorize(caller, { orgId: input.orgId, permission: 'workspace:read', scope: null });
  const actor = actorOf(caller);
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    await removeMemberCommand(
      deps.commands,
      input.orgId,
      { actor, memberId: input.memberId },
      metadata,
      record ? { sideWrite: (trx) => record(trx, null) } : {},
    );
    return null;
  });
}
