// The workspace tags' events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { TagEvent } from './tags.js';

const tag = { orgId: z.string(), tagId: z.string(), name: z.string(), color: z.string().nullable() };

const schemas = {
  TagCreated: z.object({ ...tag, createdAt: z.string() }),
  TagUpdated: z.object({ ...tag, updatedAt: z.string() }),
  TagDeleted: z.object({ orgId: z.string(), tagId: z.string(), deletedAt: z.string() }),
};
const exact: SchemasMatch<TagEvent, typeof schemas> = true;
void exact;

export const tagEventCodec = defineEventCodec<TagEvent>('tags', zodSpecs(schemas));
