// The workspace tags' events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const tag = { orgId: z.string(), tagId: z.string(), name: z.string(), color: z.string().nullable() };

const schemas = {
  TagCreated: z.object({ ...tag, createdAt: z.string() }),
  TagUpdated: z.object({ ...tag, updatedAt: z.string() }),
  TagDeleted: z.object({ orgId: z.string(), tagId: z.string(), deletedAt: z.string() }),
};
export type TagEvent = EventsOf<typeof schemas>;

export const tagEventCodec = zodEventCodec('tags', schemas);
