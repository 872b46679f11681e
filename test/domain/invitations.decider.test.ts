// The invitation decider, rule by rule: creating (role, owner-only owner invitations, members, a pending
// invitation to the same address, retries), revoking (workspace, owner invitations, accepted, twice) and
// accepting (token, single use, revoked, expiry derived from expiresAt, the invited address).
import { describe, expect, test } from 'vitest';
import {
  expiresAtFor,
  invitationDecider,
  invitationLifetimeMs,
  invitationStatusAt,
  type InvitationCommand,
  type InvitationEvent,
} from '../../domain/invitations/invitation.js';
import { invitationEventCodec } from '../../domain/invitations/event-codec.js';
import { Conflict, Forbidden, Gone, NotFound, ValidationError } from '../../domain/shared/errors.js';
import type { Role } from '../../domain/workspaces/roles.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const otherOrg = '00000000-0000-4000-8000-000000000002';
const invitationId = '00000000-0000-4000-8000-0000000000a1';
const owner = '00000000-0000-4000-8000-0000000000b1';
const admin = '00000000-0000-4000-8000-0000000000b2';
const invitee = '00000000-0000-4000-8000-0000000000c1';
const now = '2026-11-22T10:00:00.000Z';
const later = '2026-11-23T10:00:00.000Z';
const afterExpiry = new Date(Date.parse(now) + invitationLifetimeMs).toISOString();
const tokenHash = 'a'.repeat(64);

const spec = deciderSpec(invitationDecider);

const create = (
  o: Partial<Extract<InvitationCommand, { type: 'CreateInvitation' }>> = {},
): InvitationCommand => ({
  type: 'CreateInvitation',
  invitationId,
  orgId,
  email: 'Sam@Example.org ',
  roleKey: 'editor',
  tokenHash,
  invitedBy: admin,
  inviterRole: 'admin',
  alreadyMember: false,
  pendingInvitationId: null,
  now,
  ...o,
});

const created = (roleKey: Role = 'editor'): InvitationEvent => ({
  type: 'InvitationCreated',
  data: {
    invitationId,
    orgId,
    email: 'sam@example.org',
    roleKey,
    tokenHash,
    expiresAt: expiresAtFor(now),
    invitedBy: roleKey === 'owner' ? owner : admin,
    createdAt: now,
  },
});
const revoked: InvitationEvent = {
  type: 'InvitationRevoked',
  data: { invitationId, orgId, revokedBy: admin, revokedAt: later },
};
const accepted: InvitationEvent = {
  type: 'InvitationAccepted',
  data: { invitationId, orgId, userId: invitee, acceptedAt: later },
};

const revoke = (revokerRole: Role = 'admin', inOrg = orgId): InvitationCommand => ({
  type: 'RevokeInvitation',
  orgId: inOrg,
  revokedBy: revokerRole === 'owner' ? owner : admin,
  revokerRole,
  now: later,
});
const accept = (
  o: Partial<Extract<InvitationCommand, { type: 'AcceptInvitation' }>> = {},
): InvitationCommand => ({
  type: 'AcceptInvitation',
  tokenHash,
  userId: invitee,
  userEmail: 'SAM@example.org',
  now: later,
  ...o,
});

describe('creating an invitation', () => {
  test('records the lower-cased address, the role, the token hash and an expiry 7 days on', () => {
    spec.given([]).when(create()).then([created()]);
    expect(expiresAtFor(now)).toBe('2026-11-29T10:00:00.000Z');
  });

  test('an unknown role is refused naming roleKey', () => {
    spec
      .given([])
      .when(create({ roleKey: 'superuser' }))
      .thenThrows(ValidationError, /Unknown role/);
    try {
      invitationDecider.decide(create({ roleKey: 'superuser' }), invitationDecider.initialState);
    } catch (error) {
      expect((error as ValidationError).details?.[0]?.path).toBe('roleKey');
    }
  });

  test('only an owner may invite an owner', () => {
    spec
      .given([])
      .when(create({ roleKey: 'owner' }))
      .thenThrows(Forbidden, /Only an owner/);
    spec
      .given([])
      .when(create({ roleKey: 'owner', inviterRole: 'owner', invitedBy: owner }))
      .then([created('owner')]);
  });

  test('an address that is already an active member is a 409 already_member', () => {
    spec
      .given([])
      .when(create({ alreadyMember: true }))
      .thenThrows(Conflict, /already a member/);
  });

  test('a second pending invitation to the address is a 409 invitation_pending', () => {
    const other = '00000000-0000-4000-8000-0000000000a9';
    spec
      .given([])
      .when(create({ pendingInvitationId: other }))
      .thenThrows(Conflict, /pending invitation/);
    try {
      invitationDecider.decide(create({ pendingInvitationId: other }), invitationDecider.initialState);
    } catch (error) {
      expect((error as Conflict).code).toBe('invitation_pending');
    }
  });

  test('the same creation again (a retried request) decides nothing; another on the same id is a conflict', () => {
    spec
      .given([created()])
      .when(create({ tokenHash: 'b'.repeat(64) }))
      .then([]);
    spec
      .given([created()])
      .when(create({ roleKey: 'viewer' }))
      .thenThrows(Conflict, /already exists/);
  });
});

describe('revoking an invitation', () => {
  test('a pending invitation is revoked', () => {
    spec.given([created()]).when(revoke()).then([revoked]);
  });

  test('an expired one can be revoked too', () => {
    spec
      .given([created()])
      .when({ ...revoke(), now: afterExpiry })
      .then([{ ...revoked, data: { ...revoked.data, revokedAt: afterExpiry } }]);
  });

  test('revoking twice decides nothing the second time', () => {
    spec.given([created(), revoked]).when(revoke()).then([]);
  });

  test('an accepted invitation cannot be revoked', () => {
    spec
      .given([created(), accepted])
      .when(revoke())
      .thenThrows(Conflict, /accepted already/);
  });

  test('an unknown invitation, or one of another workspace, is not found', () => {
    spec.given([]).when(revoke()).thenThrows(NotFound);
    spec.given([created()]).when(revoke('admin', otherOrg)).thenThrows(NotFound);
  });

  test('only an owner revokes an invitation to become an owner', () => {
    spec
      .given([created('owner')])
      .when(revoke('admin'))
      .thenThrows(Forbidden, /Only an owner/);
    spec
      .given([created('owner')])
      .when(revoke('owner'))
      .then([{ ...revoked, data: { ...revoked.data, revokedBy: owner } }]);
  });
});

describe('accepting an invitation', () => {
  test('the invited address (any case) with the token accepts it', () => {
    spec.given([created()]).when(accept()).then([accepted]);
  });

  test('a token that is not the invitation’s, or no invitation, is not found', () => {
    spec
      .given([created()])
      .when(accept({ tokenHash: 'b'.repeat(64) }))
      .thenThrows(NotFound);
    spec.given([]).when(accept()).thenThrows(NotFound);
  });

  test('accepting twice is a 409, even by the same user', () => {
    spec
      .given([created(), accepted])
      .when(accept())
      .thenThrows(Conflict, /accepted already/);
  });

  test('a revoked invitation is gone', () => {
    spec
      .given([created(), revoked])
      .when(accept())
      .thenThrows(Gone, /revoked/);
  });

  test('an invitation is expired from expiresAt on, derived from the time of the request', () => {
    const justBefore = new Date(Date.parse(afterExpiry) - 1).toISOString();
    spec
      .given([created()])
      .when(accept({ now: justBefore }))
      .then([{ ...accepted, data: { ...accepted.data, acceptedAt: justBefore } }]);
    spec
      .given([created()])
      .when(accept({ now: afterExpiry }))
      .thenThrows(Gone, /expired/);
  });

  test('another address is refused, whatever the token', () => {
    spec
      .given([created()])
      .when(accept({ userEmail: 'someone-else@example.org' }))
      .thenThrows(Forbidden, /another e-mail address/);
  });

  test('refusals carry the codes clients branch on', () => {
    const codeOf = (events: InvitationEvent[], command: InvitationCommand) => {
      const state = events.reduce(invitationDecider.evolve, invitationDecider.initialState);
      try {
        invitationDecider.decide(command, state);
        return null;
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    expect(codeOf([], accept())).toBe('invitation_not_found');
    expect(codeOf([created(), accepted], accept())).toBe('invitation_already_accepted');
    expect(codeOf([created(), revoked], accept())).toBe('invitation_revoked');
    expect(codeOf([created()], accept({ now: afterExpiry }))).toBe('invitation_expired');
    expect(codeOf([created()], accept({ userEmail: 'x@example.org' }))).toBe('invitation_email_mismatch');
    expect(codeOf([], create({ alreadyMember: true }))).toBe('already_member');
  });
});

describe('status as read', () => {
  test('pending until expiresAt, then expired; accepted and revoked stay', () => {
    const state = (events: InvitationEvent[]) => {
      const s = events.reduce(invitationDecider.evolve, invitationDecider.initialState);
      if (s.status !== 'present') throw new Error('absent');
      return s.invitation;
    };
    expect(invitationStatusAt(state([created()]), later)).toBe('pending');
    expect(invitationStatusAt(state([created()]), afterExpiry)).toBe('expired');
    expect(invitationStatusAt(state([created(), accepted]), afterExpiry)).toBe('accepted');
    expect(invitationStatusAt(state([created(), revoked]), afterExpiry)).toBe('revoked');
  });

  test('every event round-trips through the codec', () => {
    for (const event of [created(), revoked, accepted]) {
      const decoded = invitationEventCodec.decode({
        streamName: `invitation-${invitationId}`,
        revision: 0,
        type: event.type,
        data: event.data,
        metadata: {},
      });
      expect(decoded).toEqual(event);
    }
  });
});
