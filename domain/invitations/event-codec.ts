// The invitations' events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them.
import { z } from 'zod';
import { zodEventCodec, type DataOf, type EventsOf } from '../shared/event-codec.js';
import { roles } from '../workspaces/roles.js';

const schemas = {
  /** An invitation's state is what this records and what happened to it since. */
  InvitationCreated: z.object({
    invitationId: z.string(),
    orgId: z.string(),
    /** Lower-cased, like users' addresses. */
    email: z.string(),
    roleKey: z.enum(roles),
    tokenHash: z.string(),
    expiresAt: z.string(),
    invitedBy: z.string(),
    createdAt: z.string(),
  }),
  InvitationRevoked: z.object({
    invitationId: z.string(),
    orgId: z.string(),
    revokedBy: z.string(),
    revokedAt: z.string(),
  }),
  InvitationAccepted: z.object({
    invitationId: z.string(),
    orgId: z.string(),
    userId: z.string(),
    acceptedAt: z.string(),
  }),
};
export type InvitationEvent = EventsOf<typeof schemas>;
/** What `InvitationCreated` records. */
export type InvitationCreatedData = DataOf<InvitationEvent, 'InvitationCreated'>;

export const invitationEventCodec = zodEventCodec('invitations', schemas);
