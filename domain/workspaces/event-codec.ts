// The workspace's and the slug reservation's events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event unions read off them.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';
import { roles } from './roles.js';

const role = z.enum(roles);

const workspaceSchemas = {
  WorkspaceCreated: z.object({
    orgId: z.string(),
    slug: z.string(),
    name: z.string(),
    ownerId: z.string(),
    createdAt: z.string(),
  }),
  /** `invitationId`: the invitation they joined by, if any (each invitation adds its member once). */
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
  /** The workspace's details after the change, every one of them (a projection copies them as they are). */
  WorkspaceUpdated: z.object({
    orgId: z.string(),
    name: z.string(),
    slug: z.string(),
    avatarUrl: z.string().nullable(),
    updatedAt: z.string(),
  }),
  WorkspaceDeleted: z.object({ orgId: z.string(), by: z.string(), deletedAt: z.string() }),
};
export type WorkspaceEvent = EventsOf<typeof workspaceSchemas>;

const slugSchemas = {
  SlugReserved: z.object({ slug: z.string(), orgId: z.string(), reservedAt: z.string() }),
};
export type SlugReservationEvent = EventsOf<typeof slugSchemas>;

export const workspaceEventCodec = zodEventCodec('workspaces', workspaceSchemas);
export const slugReservationEventCodec = zodEventCodec('workspace-slugs', slugSchemas);
