// Invitation use cases: invite by e-mail, revoke, and accept (the JSON API and the acceptance page call the same
// accept), through the write pipeline. Members are managed by people only: assistants may not call these.
import type { Kysely } from 'kysely';
import {
  invitationDecider,
  invitationStatusAt,
  normaliseInvitedEmail,
  type Invitation,
  type InvitationCommand,
  type InvitationStatus,
} from '../../domain/invitations/invitation.js';
import {
  invitationView,
  type AcceptedInvitation,
  type InvitationView,
} from '../../domain/invitations/views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { Forbidden, Gone, NotFound } from '../../domain/shared/errors.js';
import type { Role } from '../../domain/workspaces/roles.js';
import { secretDigest } from '../../infra/crypto/digests.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { Mailer } from '../../infra/mail/port.js';
import {
  invitationByTokenHash,
  invitationMailContext,
  isMemberByEmail,
  membershipStatus,
  pendingInvitationFor,
} from '../../projections/invitations/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import { newId } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import { loadUser } from '../users/user-commands.js';
import { addMember, loadWorkspace } from '../workspaces/workspace-commands.js';
import { invitationIn, loadInvitation, runInvitationCommand } from './invitation-commands.js';
import { acceptanceUrl, invitationMail, newInvitationToken, sendInvitationMail } from './invitation-mail.js';

export interface InvitationDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
  mailer: Mailer;
  publicBaseUrl: string;
  logger?: Pick<Logger, 'warn'>;
}

const managing = (orgId: string) => ({ orgId, permission: 'members:manage', scope: null }) as const;

/**
 * Invites an address with a role. The mail goes out before the invitation is recorded, so nothing pending is
 * left without a mail: if every attempt to send fails the answer is 503 `mail_not_sent` and nothing is kept;
 * if recording fails after the mail went out, its link answers "unknown invitation".
 */
export async function createInvitation(
  deps: InvitationDeps,
  caller: Caller,
  input: { orgId: string; email: string; roleKey: string },
  request: WriteRequest,
): Promise<Written<InvitationView>> {
  authorize(caller, managing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    // With a key, the id comes from it: a retry after a crash finds its own invitation instead of a second one.
    const invitationId = newId(idempotencySeed ? [idempotencySeed, 'invitation'] : undefined);
    const { orgId } = input;
    const email = normaliseInvitedEmail(input.email);
    const token = newInvitationToken();
    const loaded = await loadInvitation(deps.commands, invitationId);
    const command: InvitationCommand = {
      type: 'CreateInvitation',
      invitationId,
      orgId,
      email,
      roleKey: input.roleKey,
      tokenHash: secretDigest(token),
      invitedBy: caller.userId,
      inviterRole: caller.role,
      alreadyMember: await isMemberByEmail(deps.readModels, orgId, email),
      pendingInvitationId: await pendingInvitationFor(deps.readModels, {
        orgId,
        email,
        now: request.now,
        exceptId: invitationId,
      }),
      now: request.now,
    };
    // Decided once before mailing, so a refused invitation sends nothing and a retried one sends no second mail.
    const [created] = invitationDecider.decide(command, loaded.state);
    if (created?.type === 'InvitationCreated') {
      const context = await invitationMailContext(deps.readModels, orgId, caller.userId);
      await sendInvitationMail(
        deps.mailer,
        invitationMail({
          to: email,
          orgName: context.orgName,
          inviter: context.inviter,
          roleKey: created.data.roleKey,
          expiresAt: created.data.expiresAt,
          url: acceptanceUrl(deps.publicBaseUrl, token),
        }),
        (error, attempt) =>
          deps.logger?.warn({ err: error, attempt, invitationId }, 'invitation mail not sent'),
      );
    }
    const { invitation } = await runInvitationCommand(deps.commands, invitationId, orgId, command, metadata, {
      loaded,
      ...(record ? { sideWrite: (trx, i) => record(trx, invitationView(i, request.now)) } : {}),
    });
    return invitationView(invitation, request.now);
  });
}

export interface RevokedInvitation {
  id: string;
  status: InvitationStatus;
}

/** Withdraws a pending (or expired) invitation: its link stops working. Revoking twice answers the same. */
export async function revokeInvitation(
  deps: WriteDeps,
  caller: Caller,
  input: { orgId: string; invitationId: string },
  request: WriteRequest,
): Promise<Written<RevokedInvitation>> {
  authorize(caller, managing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const answer = (i: Invitation): RevokedInvitation => ({
      id: i.invitationId,
      status: invitationStatusAt(i, request.now),
    });
    const { invitation } = await runInvitationCommand(
      deps.commands,
      input.invitationId,
      input.orgId,
      {
        type: 'RevokeInvitation',
        orgId: input.orgId,
        revokedBy: caller.userId,
        revokerRole: caller.role,
        now: request.now,
      },
      metadata,
      record ? { sideWrite: (trx, i) => record(trx, answer(i)) } : {},
    );
    return answer(invitation);
  });
}

/**
 * Accepts an invitation for the signed-in caller, whose address must be the invited one; they join the workspace
 * with the invited role (an active member keeps the role they have). Needs no workspace: a user-only token works.
 */
export async function acceptInvitation(
  deps: InvitationDeps,
  caller: Caller,
  input: { token: string },
  request: WriteRequest,
): Promise<Written<AcceptedInvitation>> {
  authorize(caller, { scope: null });
  return runWrite(deps.idempotency, caller, request, async ({ metadata }) => {
    const tokenHash = secretDigest(input.token);
    const found = await invitationByTokenHash(deps.readModels, tokenHash, request.now);
    if (!found) throw new NotFound('Invitation not found', 'invitation_not_found');
    const user = await loadUser(deps.commands, caller.userId);
    const loaded = await loadInvitation(deps.commands, found.id);
    const command: InvitationCommand = {
      type: 'AcceptInvitation',
      tokenHash,
      userId: caller.userId,
      userEmail: user.email,
      now: request.now,
    };
    const joins = (orgId: string, role: Role, invitationId: string) =>
      addMember(deps.commands, orgId, { userId: caller.userId, role, invitationId }, { ...metadata, orgId });
    // Accepted by this very user, but the membership that follows did not get written (the process stopped
    // between the two appends): accepting again completes it. Once the invitation's member joined, the workspace
    // remembers it, so this never brings back someone removed since; that is the 409 below.
    const earlier = loaded.state.status === 'present' ? loaded.state.invitation : null;
    if (earlier?.status === 'accepted' && earlier.acceptedBy === caller.userId) {
      const workspace = await loadWorkspace(deps.commands, earlier.orgId);
      if (!workspace.invitationsJoined[earlier.invitationId]) {
        await joins(earlier.orgId, earlier.roleKey, earlier.invitationId);
        return { orgId: earlier.orgId, orgSlug: found.orgSlug, orgName: found.orgName };
      }
    }
    // Every refusal of the invitation comes before anything changes.
    invitationDecider.decide(command, loaded.state);
    const invitation = invitationIn(loaded.state);
    if (found.orgStatus !== 'active') throw new Gone('This workspace was deleted', 'workspace_deleted');
    const membership = await membershipStatus(deps.readModels, invitation.orgId, caller.userId);
    // Accepting must not undo a suspension: the same answer a suspended member's token gets in the workspace.
    if (membership === 'suspended')
      throw new Forbidden(
        'Your membership of this workspace is suspended; an owner or admin can reactivate it',
        'membership_suspended',
      );
    // The invitation is used up first (one append decides single use), then the membership follows, marked with
    // the invitation so it is added once (an active member keeps their role). The answer is recorded only after
    // both, so a failed second step is not replayed as success, and accepting again completes it (above).
    await runInvitationCommand(deps.commands, invitation.invitationId, invitation.orgId, command, metadata, {
      loaded,
    });
    await joins(invitation.orgId, invitation.roleKey, invitation.invitationId);
    return { orgId: invitation.orgId, orgSlug: found.orgSlug, orgName: found.orgName };
  });
}
