// The workspace's and the slug reservation's events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import { roles } from './roles.js';
import type { SlugReservationEvent } from './slug-reservation.js';
import type { WorkspaceEvent } from './workspace.js';

const role = z.enum(roles);

const workspaceSchemas = {
  WorkspaceCreated: z.object({
    orgId: z.string(),
    slug: z.string(),
    name: z.string(),
    ownerId: z.string(),
    createdAt: z.string(),
  }),
  MemberJoined: z.object({
    orgId: z.string(),
    userId: z.string(),
    role,
    joinedAt: z.string(),
    invitationId: z.string().optional(),
  }),
  MemberRoleChanged: z.object({ orgId: z.string(), userId: z.string(), role, changedAt: z.string() }),
  MemberSuspended: z.object({
    orgId: z.string(),
    userId: z.string(),
    by: z.string(),
    suspendedAt: z.string(),
  }),
  MemberReactivated: z.object({
    orgId: z.string(),
    userId: z.string(),
    by: z.string(),
    reactivatedAt: z.string(),
  }),
  MemberRemoved: z.object({ orgId: z.string(), userId: z.string(), by: z.string(), removedAt: z.string() }),
  WorkspaceUpdated: z.object({
    orgId: z.string(),
    name: z.string(),
    slug: z.string(),
    avatarUrl: z.string().nullable(),
    updatedAt: z.string(),
  }),
  WorkspaceDeleted: z.object({ orgId: z.string(), by: z.string(), deletedAt: z.string() }),
};
const workspaceExact: SchemasMatch<WorkspaceEvent, typeof workspaceSchemas> = true;

const slugSchemas = {
  SlugReserved: z.object({ slug: z.string(), orgId: z.string(), reservedAt: z.string() }),
};
const slugExact: SchemasMatch<SlugReservationEvent, typeof slugSchemas> = true;
void [workspaceExact, slugExact];

export const workspaceEventCodec = defineEventCodec<WorkspaceEvent>('workspaces', zodSpecs(workspaceSchemas));
export const slugReservationEventCodec = defineEventCodec<SlugReservationEvent>(
  'workspace-slugs',
  zodSpecs(slugSchemas),
);
