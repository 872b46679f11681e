// The invitations' events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import { roles } from '../workspaces/roles.js';
import type { InvitationEvent } from './invitation.js';

const schemas = {
  InvitationCreated: z.object({
    invitationId: z.string(),
    orgId: z.string(),
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
const exact: SchemasMatch<InvitationEvent, typeof schemas> = true;
void exact;

export const invitationEventCodec = defineEventCodec<InvitationEvent>('invitations', zodSpecs(schemas));
