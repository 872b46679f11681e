// An invitation as callers see it (the spec's Invitation): from the aggregate for write answers, from the
// invitations read model for lists (which add roleName). The token never appears in either.
import type { Role } from '../workspaces/roles.js';
import { invitationStatusAt, type Invitation, type InvitationStatus } from './invitation.js';

export interface InvitationView {
  id: string;
  email: string;
  roleKey: Role;
  status: InvitationStatus;
  expiresAt: string;
  createdAt: string;
}

export interface InvitationListItem extends InvitationView {
  roleName: string;
}

export function invitationView(invitation: Invitation, now: string): InvitationView {
  return {
    id: invitation.invitationId,
    email: invitation.email,
    roleKey: invitation.roleKey,
    status: invitationStatusAt(invitation, now),
    expiresAt: invitation.expiresAt,
    createdAt: invitation.createdAt,
  };
}

/** What accepting answers (POST /v1/invitations/accept): the workspace joined. */
export interface AcceptedInvitation {
  orgId: string;
  orgSlug: string;
  orgName: string;
}
