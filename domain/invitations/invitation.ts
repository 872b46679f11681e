// The invitation aggregate: one person invited by e-mail to one workspace with one role, until they accept it,
// it is revoked, or it expires. Stream `invitation-<invitationId>`; only the token's SHA-256 is ever recorded.
import { Conflict, Forbidden, Gone, InvalidFields, NotFound } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { isRole, type Role } from '../workspaces/roles.js';
import { invitationEventCodec, type InvitationCreatedData, type InvitationEvent } from './event-codec.js';

export type { InvitationCreatedData, InvitationEvent } from './event-codec.js';

export const invitationCategory = 'invitation';

/** How long an invitation can be accepted (docs/decisions.md, "Invitations"). */
export const invitationLifetimeDays = 7;
export const invitationLifetimeMs = invitationLifetimeDays * 24 * 3600 * 1000;

/** What a reader sees: `expired` is a pending invitation past `expiresAt`, derived when read, never stored. */
export const invitationStatuses = ['pending', 'accepted', 'revoked', 'expired'] as const;
export type InvitationStatus = (typeof invitationStatuses)[number];

export type InvitationCommand =
  | {
      type: 'CreateInvitation';
      invitationId: string;
      orgId: string;
      email: string;
      /** As asked for; checked here against the roles. */
      roleKey: string;
      tokenHash: string;
      invitedBy: string;
      /** The inviter's role: only an owner may invite an owner. */
      inviterRole: Role | null;
      /** Read from the workspace's members: the address is already a member's (active or suspended). */
      alreadyMember: boolean;
      /** Read from the invitations: another invitation to the address still pending, if any. */
      pendingInvitationId: string | null;
      now: string;
    }
  | { type: 'RevokeInvitation'; orgId: string; revokedBy: string; revokerRole: Role | null; now: string }
  | {
      type: 'AcceptInvitation';
      /** SHA-256 of the token presented; it must be this invitation's. */
      tokenHash: string;
      userId: string;
      /** The accepting user's address; it must be the invited one (compared case-insensitively). */
      userEmail: string;
      now: string;
    };

export interface Invitation extends InvitationCreatedData {
  /** As recorded; `expired` is never stored (see invitationStatusAt). */
  status: 'pending' | 'accepted' | 'revoked';
  acceptedBy: string | null;
  updatedAt: string;
}

export type InvitationState = { status: 'absent' } | { status: 'present'; invitation: Invitation };

export function invitationStatusAt(invitation: Invitation, now: string): InvitationStatus {
  if (invitation.status === 'pending' && Date.parse(now) >= Date.parse(invitation.expiresAt))
    return 'expired';
  return invitation.status;
}

export function normaliseInvitedEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function expiresAtFor(now: string): string {
  return new Date(Date.parse(now) + invitationLifetimeMs).toISOString();
}

function roleOf(roleKey: string): Role {
  if (!isRole(roleKey))
    throw new InvalidFields('Unknown role', [
      { path: 'roleKey', message: 'one of owner, admin, reviewer, editor, viewer' },
    ]);
  return roleKey;
}

const notFound = () => new NotFound('Invitation not found', 'invitation_not_found');

export const invitationDecider: Decider<InvitationState, InvitationCommand, InvitationEvent> = {
  initialState: { status: 'absent' },
  codec: invitationEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'CreateInvitation': {
        const roleKey = roleOf(command.roleKey);
        const email = normaliseInvitedEmail(command.email);
        if (state.status === 'present') {
          // The same creation again (a retried request with one Idempotency-Key) changes nothing.
          const i = state.invitation;
          if (i.orgId === command.orgId && i.email === email && i.roleKey === roleKey) return [];
          throw new Conflict('Invitation already exists');
        }
        // Only an owner grants the owner role, whether by promoting a member or by inviting one.
        if (roleKey === 'owner' && command.inviterRole !== 'owner')
          throw new Forbidden('Only an owner may invite an owner', 'owner_only');
        if (command.alreadyMember)
          throw new Conflict(
            `${email} is already a member of this workspace (a suspended member is reactivated, not invited)`,
            'already_member',
          );
        if (command.pendingInvitationId !== null)
          throw new Conflict(
            `${email} has a pending invitation already (${command.pendingInvitationId}); revoke it to send a new one`,
            'invitation_pending',
          );
        return [
          {
            type: 'InvitationCreated',
            data: {
              invitationId: command.invitationId,
              orgId: command.orgId,
              email,
              roleKey,
              tokenHash: command.tokenHash,
              expiresAt: expiresAtFor(command.now),
              invitedBy: command.invitedBy,
              createdAt: command.now,
            },
          },
        ];
      }
      case 'RevokeInvitation': {
        // Another workspace's invitation is not in this one: the same 404 as an unknown id.
        if (state.status !== 'present' || state.invitation.orgId !== command.orgId) throw notFound();
        const i = state.invitation;
        if (i.status === 'revoked') return [];
        if (i.status === 'accepted')
          throw new Conflict('The invitation was accepted already', 'invitation_already_accepted');
        // A pending owner invitation is an owner grant in waiting: only an owner withdraws it.
        if (i.roleKey === 'owner' && command.revokerRole !== 'owner')
          throw new Forbidden('Only an owner may revoke an invitation to become an owner', 'owner_only');
        return [
          {
            type: 'InvitationRevoked',
            data: {
              invitationId: i.invitationId,
              orgId: i.orgId,
              revokedBy: command.revokedBy,
              revokedAt: command.now,
            },
          },
        ];
      }
      case 'AcceptInvitation': {
        if (state.status !== 'present' || state.invitation.tokenHash !== command.tokenHash) throw notFound();
        const i = state.invitation;
        switch (invitationStatusAt(i, command.now)) {
          case 'accepted':
            throw new Conflict('This invitation was accepted already', 'invitation_already_accepted');
          case 'revoked':
            throw new Gone('This invitation was revoked', 'invitation_revoked');
          case 'expired':
            throw new Gone(`This invitation expired at ${i.expiresAt}`, 'invitation_expired');
          case 'pending':
            break;
        }
        if (normaliseInvitedEmail(command.userEmail) !== i.email)
          throw new Forbidden(
            'This invitation was sent to another e-mail address; sign in with that address to accept it',
            'invitation_email_mismatch',
          );
        return [
          {
            type: 'InvitationAccepted',
            data: {
              invitationId: i.invitationId,
              orgId: i.orgId,
              userId: command.userId,
              acceptedAt: command.now,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'InvitationCreated': {
        const d = event.data;
        return {
          status: 'present',
          invitation: {
            invitationId: d.invitationId,
            orgId: d.orgId,
            email: d.email,
            roleKey: d.roleKey,
            tokenHash: d.tokenHash,
            expiresAt: d.expiresAt,
            invitedBy: d.invitedBy,
            createdAt: d.createdAt,
            status: 'pending',
            acceptedBy: null,
            updatedAt: d.createdAt,
          },
        };
      }
      case 'InvitationRevoked':
        if (state.status !== 'present') return state;
        return {
          status: 'present',
          invitation: { ...state.invitation, status: 'revoked', updatedAt: event.data.revokedAt },
        };
      case 'InvitationAccepted':
        if (state.status !== 'present') return state;
        return {
          status: 'present',
          invitation: {
            ...state.invitation,
            status: 'accepted',
            acceptedBy: event.data.userId,
            updatedAt: event.data.acceptedAt,
          },
        };
      default:
        return assertNever(event);
    }
  },
};
