// A saved thought's events (issue 29), declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them. One stream per thought, `thought-<thoughtId>`.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

export const thoughtKinds = ['thought', 'tip', 'opinion', 'story', 'lesson'] as const;
export type ThoughtKind = (typeof thoughtKinds)[number];
export const thoughtStatuses = ['new', 'drafted', 'archived'] as const;
export type ThoughtStatus = (typeof thoughtStatuses)[number];

const ids = { orgId: z.string(), thoughtId: z.string() };

const schemas = {
  ThoughtSaved: z.object({
    ...ids,
    text: z.string(),
    kind: z.enum(thoughtKinds),
    source: z.string().nullable(),
    tags: z.array(z.string()),
    by: z.string().nullable(),
    createdAt: z.string(),
  }),
  /** The thought's words after the edit, whole (text, kind, tags). */
  ThoughtEdited: z.object({
    ...ids,
    text: z.string(),
    kind: z.enum(thoughtKinds),
    tags: z.array(z.string()),
    updatedAt: z.string(),
  }),
  /** A status set by a person (PATCH status): archived stops feeding generation, new or drafted brings it back. */
  ThoughtStatusChanged: z.object({
    ...ids,
    from: z.enum(thoughtStatuses),
    status: z.enum(thoughtStatuses),
    updatedAt: z.string(),
  }),
  ThoughtDeleted: z.object({ ...ids, deletedAt: z.string() }),
  /** Posts were drafted from the thought by one agent run: the groups it put in review. */
  ThoughtDrafted: z.object({
    ...ids,
    groupIds: z.array(z.string()).min(1),
    agentRunId: z.string(),
    at: z.string(),
  }),
};
export type ThoughtEvent = EventsOf<typeof schemas>;

export const thoughtEventCodec = zodEventCodec('thoughts', schemas);
