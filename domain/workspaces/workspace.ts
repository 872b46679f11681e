// The workspace (organisation) aggregate: creation, its details, members (roles, suspension, removal) and its
// soft deletion. Stream `workspace-<orgId>`. Slug uniqueness lives in its own aggregate (slug-reservation.ts)
// because it spans workspaces. Rules: docs/decisions.md, "Workspace administration".
import { Conflict, Forbidden, Gone, InvalidFields, NotFound } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { permissionsOf, type Role } from './roles.js';
import { workspaceEventCodec, type WorkspaceEvent } from './event-codec.js';

export const workspaceCategory = 'workspace';

export type { WorkspaceEvent } from './event-codec.js';

export const maxWorkspaceNameLength = 100;

export type MemberStatus = 'active' | 'suspended';

/** Who asks, as the decider needs to know them: the member acting and their role now. */
export interface Actor {
  userId: string;
  role: Role;
}

export type WorkspaceCommand =
  | { type: 'CreateWorkspace'; orgId: string; slug: string; name: string; ownerId: string; now: string }
  /** Joins a new member, or changes an existing one's role (invitations, the CLI); a suspension stays. */
  /**
   * With `invitationId`: the member an accepted invitation brings, added once per invitation (a repeat, also
   * after they were removed, changes nothing) and never changing the role of someone already a member.
   */
  | { type: 'AddMember'; userId: string; role: Role; invitationId?: string; now: string }
  | {
      type: 'ChangeMember';
      actor: Actor;
      userId: string;
      role?: Role;
      status?: MemberStatus;
      now: string;
    }
  /** Removing someone else needs `members:manage`; anyone may remove themselves (leave). */
  | { type: 'RemoveMember'; actor: Actor; userId: string; now: string }
  | {
      type: 'UpdateWorkspace';
      name?: string;
      slug?: string;
      avatarUrl?: string | null;
      /** The avatar is a logo uploaded to this service (its asset URL, checked by the use case), not an https link. */
      avatarIsOwnAsset?: boolean;
      now: string;
    }
  | { type: 'DeleteWorkspace'; actor: Actor; now: string };

export interface WorkspaceMember {
  role: Role;
  status: MemberStatus;
  joinedAt: string;
}

interface WorkspaceDetails {
  orgId: string;
  slug: string;
  name: string;
  ownerId: string;
  avatarUrl: string | null;
  createdAt: string;
  updatedAt: string;
  members: Readonly<Record<string, WorkspaceMember>>;
  /** Invitations whose member joined. */
  invitationsJoined: Readonly<Record<string, true>>;
}

export type WorkspaceState =
  | { status: 'absent' }
  | ({ status: 'active' } & WorkspaceDetails)
  /** Soft-deleted: the history stays, every later command is refused (410 `workspace_deleted`). */
  | ({ status: 'deleted'; deletedAt: string } & WorkspaceDetails);

export const slugPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function validateSlug(slug: string): void {
  if (!slugPattern.test(slug)) {
    throw new InvalidFields('Invalid slug', [
      { path: 'slug', message: 'lowercase letters, digits and inner hyphens, 1 to 63 characters' },
    ]);
  }
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) {
    throw new InvalidFields('Invalid name', [{ path: 'name', message: 'must not be blank' }]);
  }
  if (trimmed.length > maxWorkspaceNameLength) {
    throw new InvalidFields('Invalid name', [
      { path: 'name', message: `at most ${maxWorkspaceNameLength} characters` },
    ]);
  }
  return trimmed;
}

/** An https URL (a workspace avatar is shown to every member, so never a plain-http or script link). */
export function isAvatarUrl(value: string): boolean {
  if (value.length > 2048) return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

export const workspaceDeleted = () => new Gone('This workspace was deleted', 'workspace_deleted');

/** The workspace a command may act on: 404 when it never existed, 410 once deleted. */
function live(state: WorkspaceState): Extract<WorkspaceState, { status: 'active' }> {
  if (state.status === 'absent') throw new NotFound('Workspace not found');
  if (state.status === 'deleted') throw workspaceDeleted();
  return state;
}

function memberOf(state: WorkspaceDetails, userId: string): WorkspaceMember {
  const member = state.members[userId];
  if (!member) throw new NotFound('Member not found');
  return member;
}

/** Only an owner may grant, change or remove the owner role. */
function requireOwnerFor(actor: Actor, touchesOwner: boolean): void {
  if (touchesOwner && actor.role !== 'owner') {
    throw new Forbidden('Only an owner may grant, change or remove the owner role', 'owner_only');
  }
}

/** Active owners other than `userId`: a change that leaves none is refused. */
function otherActiveOwners(state: WorkspaceDetails, userId: string): number {
  return Object.entries(state.members).filter(
    ([id, m]) => id !== userId && m.role === 'owner' && m.status === 'active',
  ).length;
}

const lastOwner = () =>
  new Conflict('A workspace keeps at least one active owner: make another member owner first', 'last_owner');

export const workspaceDecider: Decider<WorkspaceState, WorkspaceCommand, WorkspaceEvent> = {
  initialState: { status: 'absent' },
  codec: workspaceEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'CreateWorkspace': {
        if (state.status !== 'absent') {
          // Re-running the same creation (a retried request) changes nothing.
          if (state.status === 'active' && state.slug === command.slug && state.ownerId === command.ownerId)
            return [];
          throw new Conflict('Workspace already exists');
        }
        validateSlug(command.slug);
        const name = validName(command.name);
        return [
          {
            type: 'WorkspaceCreated',
            data: {
              orgId: command.orgId,
              slug: command.slug,
              name,
              ownerId: command.ownerId,
              createdAt: command.now,
            },
          },
          {
            type: 'MemberJoined',
            data: { orgId: command.orgId, userId: command.ownerId, role: 'owner', joinedAt: command.now },
          },
        ];
      }
      case 'AddMember': {
        const workspace = live(state);
        const existing = workspace.members[command.userId];
        const invitationId = command.invitationId;
        if (invitationId !== undefined && (existing || workspace.invitationsJoined[invitationId])) return [];
        if (!existing) {
          return [
            {
              type: 'MemberJoined',
              data: {
                orgId: workspace.orgId,
                userId: command.userId,
                role: command.role,
                joinedAt: command.now,
                ...(invitationId !== undefined ? { invitationId } : {}),
              },
            },
          ];
        }
        if (existing.role === command.role) return [];
        if (
          existing.role === 'owner' &&
          existing.status === 'active' &&
          otherActiveOwners(workspace, command.userId) === 0
        ) {
          throw lastOwner();
        }
        return [
          {
            type: 'MemberRoleChanged',
            data: {
              orgId: workspace.orgId,
              userId: command.userId,
              role: command.role,
              changedAt: command.now,
            },
          },
        ];
      }
      case 'ChangeMember': {
        const workspace = live(state);
        const member = memberOf(workspace, command.userId);
        const role = command.role ?? member.role;
        const status = command.status ?? member.status;
        if (role === member.role && status === member.status) return [];
        requireOwnerFor(command.actor, member.role === 'owner' || role === 'owner');
        const staysActiveOwner = role === 'owner' && status === 'active';
        if (
          member.role === 'owner' &&
          member.status === 'active' &&
          !staysActiveOwner &&
          otherActiveOwners(workspace, command.userId) === 0
        ) {
          throw lastOwner();
        }
        if (status === 'suspended' && member.status === 'active' && command.userId === command.actor.userId) {
          throw new Conflict(
            'You cannot suspend yourself; leave the workspace instead',
            'cannot_suspend_self',
          );
        }
        const { orgId } = workspace;
        const userId = command.userId;
        const events: WorkspaceEvent[] = [];
        if (role !== member.role) {
          events.push({ type: 'MemberRoleChanged', data: { orgId, userId, role, changedAt: command.now } });
        }
        if (status === 'suspended' && member.status === 'active') {
          events.push({
            type: 'MemberSuspended',
            data: { orgId, userId, by: command.actor.userId, suspendedAt: command.now },
          });
        }
        if (status === 'active' && member.status === 'suspended') {
          events.push({
            type: 'MemberReactivated',
            data: { orgId, userId, by: command.actor.userId, reactivatedAt: command.now },
          });
        }
        return events;
      }
      case 'RemoveMember': {
        const workspace = live(state);
        const member = memberOf(workspace, command.userId);
        const leaving = command.userId === command.actor.userId;
        if (!leaving && !permissionsOf(command.actor.role).includes('members:manage')) {
          throw new Forbidden('Your role does not allow this action');
        }
        if (!leaving) requireOwnerFor(command.actor, member.role === 'owner');
        if (
          member.role === 'owner' &&
          member.status === 'active' &&
          otherActiveOwners(workspace, command.userId) === 0
        ) {
          throw lastOwner();
        }
        return [
          {
            type: 'MemberRemoved',
            data: {
              orgId: workspace.orgId,
              userId: command.userId,
              by: command.actor.userId,
              removedAt: command.now,
            },
          },
        ];
      }
      case 'UpdateWorkspace': {
        const workspace = live(state);
        const name = command.name === undefined ? workspace.name : validName(command.name);
        if (command.slug !== undefined) validateSlug(command.slug);
        const slug = command.slug ?? workspace.slug;
        const avatarUrl = command.avatarUrl === undefined ? workspace.avatarUrl : command.avatarUrl;
        if (
          avatarUrl !== null &&
          avatarUrl !== workspace.avatarUrl &&
          command.avatarIsOwnAsset !== true &&
          !isAvatarUrl(avatarUrl)
        ) {
          throw new InvalidFields('Invalid avatarUrl', [
            {
              path: 'avatarUrl',
              message: 'an https URL of at most 2048 characters, the assetUrl of a logo upload, or null',
            },
          ]);
        }
        if (name === workspace.name && slug === workspace.slug && avatarUrl === workspace.avatarUrl)
          return [];
        return [
          {
            type: 'WorkspaceUpdated',
            data: { orgId: workspace.orgId, name, slug, avatarUrl, updatedAt: command.now },
          },
        ];
      }
      case 'DeleteWorkspace': {
        const workspace = live(state);
        if (!permissionsOf(command.actor.role).includes('workspace:delete')) {
          throw new Forbidden('Only an owner may delete the workspace');
        }
        return [
          {
            type: 'WorkspaceDeleted',
            data: { orgId: workspace.orgId, by: command.actor.userId, deletedAt: command.now },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    if (event.type === 'WorkspaceCreated') {
      return {
        status: 'active',
        orgId: event.data.orgId,
        slug: event.data.slug,
        name: event.data.name,
        ownerId: event.data.ownerId,
        avatarUrl: null,
        createdAt: event.data.createdAt,
        updatedAt: event.data.createdAt,
        members: {},
        invitationsJoined: {},
      };
    }
    if (state.status === 'absent') return state;
    const withMember = (userId: string, change: (m: WorkspaceMember) => WorkspaceMember) => {
      const member = state.members[userId];
      if (!member) return state;
      return { ...state, members: { ...state.members, [userId]: change(member) } };
    };
    switch (event.type) {
      case 'MemberJoined':
        return {
          ...state,
          ...(event.data.invitationId !== undefined
            ? { invitationsJoined: { ...state.invitationsJoined, [event.data.invitationId]: true as const } }
            : {}),
          members: {
            ...state.members,
            [event.data.userId]: { role: event.data.role, status: 'active', joinedAt: event.data.joinedAt },
          },
        };
      case 'MemberRoleChanged':
        return withMember(event.data.userId, (m) => ({ ...m, role: event.data.role }));
      case 'MemberSuspended':
        return withMember(event.data.userId, (m) => ({ ...m, status: 'suspended' }));
      case 'MemberReactivated':
        return withMember(event.data.userId, (m) => ({ ...m, status: 'active' }));
      case 'MemberRemoved': {
        const { [event.data.userId]: _removed, ...members } = state.members;
        return { ...state, members };
      }
      case 'WorkspaceUpdated':
        return {
          ...state,
          name: event.data.name,
          slug: event.data.slug,
          avatarUrl: event.data.avatarUrl,
          updatedAt: event.data.updatedAt,
        };
      case 'WorkspaceDeleted':
        return { ...state, status: 'deleted', deletedAt: event.data.deletedAt };
      default:
        return assertNever(event);
    }
  },
};
