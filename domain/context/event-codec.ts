// The context library's events (issue 31), declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event unions read off them. One stream per source
// (`contextSource-<sourceId>`) and one per document (`contextDocument-<documentId>`); a document's id is derived
// from its source and the page it copies, so a re-sync updates the document rather than adding a second one.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

export const contextSourceTypes = ['notion'] as const;
export type ContextSourceType = (typeof contextSourceTypes)[number];
export const contextSourceStatuses = ['connected', 'disconnected', 'error'] as const;
export type ContextSourceStatus = (typeof contextSourceStatuses)[number];
export const disclosures = ['public', 'private', 'restricted'] as const;
export type Disclosure = (typeof disclosures)[number];

const sourceIds = { orgId: z.string(), sourceId: z.string() };

const sourceSchemas = {
  /** Connected (or connected again) through Notion's OAuth; the token is sealed apart (never in an event). */
  ContextSourceConnected: z.object({
    ...sourceIds,
    sourceType: z.enum(contextSourceTypes),
    externalWorkspaceId: z.string().nullable(),
    workspaceName: z.string().nullable(),
    by: z.string().nullable(),
    at: z.string(),
  }),
  /** A sync read pages through the source: it works (back to connected after an error). */
  ContextSourceSynced: z.object({ ...sourceIds, synced: z.number(), failed: z.number(), at: z.string() }),
  /** The source refused the stored token (revoked in Notion): status error with lastError. */
  ContextSourceFailed: z.object({ ...sourceIds, error: z.string(), at: z.string() }),
  /** Disconnected by a person: the token is revoked at Notion (or the revocation's failure is recorded). */
  ContextSourceDisconnected: z.object({
    ...sourceIds,
    revoked: z.boolean(),
    revokeError: z.string().nullable(),
    by: z.string().nullable(),
    at: z.string(),
  }),
};
export type ContextSourceEvent = EventsOf<typeof sourceSchemas>;
export const contextSourceEventCodec = zodEventCodec('context-sources', sourceSchemas);

const documentIds = { orgId: z.string(), documentId: z.string() };

const documentSchemas = {
  /** A page copied (first time or again) as plain text; enabled and disclosure stay the user's on a re-sync. */
  ContextDocumentSynced: z.object({
    ...documentIds,
    sourceId: z.string(),
    sourceType: z.enum(contextSourceTypes),
    externalId: z.string(),
    title: z.string(),
    contentText: z.string(),
    contentUrl: z.string().nullable(),
    syncedAt: z.string(),
  }),
  /** enabled and disclosure after a person's change, whole. */
  ContextDocumentUpdated: z.object({
    ...documentIds,
    enabled: z.boolean(),
    disclosure: z.enum(disclosures),
    updatedAt: z.string(),
  }),
  ContextDocumentDeleted: z.object({ ...documentIds, deletedAt: z.string() }),
};
export type ContextDocumentEvent = EventsOf<typeof documentSchemas>;
export const contextDocumentEventCodec = zodEventCodec('context-documents', documentSchemas);
