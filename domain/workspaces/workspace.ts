// The workspace (organisation) aggregate: creation, members and their roles. Stream `workspace-<orgId>`.
// Slug uniqueness lives in its own aggregate (slug-reservation.ts) because it spans workspaces.
import { Conflict, InvalidFields, NotFound } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import type { Role } from './roles.js';
import { workspaceEventCodec } from './event-codec.js';

export const workspaceCategory = 'workspace';

export type WorkspaceEvent =
  | {
      type: 'WorkspaceCreated';
      data: { orgId: string; slug: string; name: string; ownerId: string; createdAt: string };
    }
  | { type: 'MemberJoined'; data: { orgId: string; userId: string; role: Role; joinedAt: string } }
  | { type: 'MemberRoleChanged'; data: { orgId: string; userId: string; role: Role; changedAt: string } };

export type WorkspaceCommand =
  | { type: 'CreateWorkspace'; orgId: string; slug: string; name: string; ownerId: string; now: string }
  | { type: 'AddMember'; userId: string; role: Role; now: string };

export interface WorkspaceMember {
  role: Role;
  joinedAt: string;
}

export type WorkspaceState =
  | { status: 'absent' }
  | {
      status: 'active';
      orgId: string;
      slug: string;
      name: string;
      ownerId: string;
      avatarUrl: string | null;
      createdAt: string;
      updatedAt: string;
      members: Readonly<Record<string, WorkspaceMember>>;
    };

export const slugPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function validateSlug(slug: string): void {
  if (!slugPattern.test(slug)) {
    throw new InvalidFields('Invalid slug', [
      { path: 'slug', message: 'lowercase letters, digits and inner hyphens, 1 to 63 characters' },
    ]);
  }
}

export const workspaceDecider: Decider<WorkspaceState, WorkspaceCommand, WorkspaceEvent> = {
  initialState: { status: 'absent' },
  codec: workspaceEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'CreateWorkspace': {
        if (state.status !== 'absent') {
          // Re-running the same creation (a retried request) changes nothing.
          if (state.slug === command.slug && state.ownerId === command.ownerId) return [];
          throw new Conflict('Workspace already exists');
        }
        validateSlug(command.slug);
        const name = command.name.trim();
        if (name.length === 0) {
          throw new InvalidFields('Invalid name', [{ path: 'name', message: 'must not be blank' }]);
        }
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
        if (state.status === 'absent') throw new NotFound('Workspace not found');
        const existing = state.members[command.userId];
        if (!existing) {
          return [
            {
              type: 'MemberJoined',
              data: { orgId: state.orgId, userId: command.userId, role: command.role, joinedAt: command.now },
            },
          ];
        }
        if (existing.role === command.role) return [];
        if (
          existing.role === 'owner' &&
          Object.values(state.members).filter((m) => m.role === 'owner').length === 1
        ) {
          throw new Conflict('A workspace keeps at least one owner', 'last_owner');
        }
        return [
          {
            type: 'MemberRoleChanged',
            data: { orgId: state.orgId, userId: command.userId, role: command.role, changedAt: command.now },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WorkspaceCreated':
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
        };
      case 'MemberJoined':
        if (state.status === 'absent') return state;
        return {
          ...state,
          members: {
            ...state.members,
            [event.data.userId]: { role: event.data.role, joinedAt: event.data.joinedAt },
          },
        };
      case 'MemberRoleChanged': {
        if (state.status === 'absent') return state;
        const member = state.members[event.data.userId];
        if (!member) return state;
        return {
          ...state,
          members: { ...state.members, [event.data.userId]: { ...member, role: event.data.role } },
        };
      }
      default:
        return assertNever(event);
    }
  },
};
