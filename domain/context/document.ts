// The context document aggregate (spec part 2, "Context source and document"; issue 31): a Notion page copied as
// plain text. One stream per document (`contextDocument-<documentId>`), its id derived from the source and the
// page, so syncing a page again updates its document. A new document is enabled and `private`: nothing synced
// reaches generated public text until a person makes it public (docs/decisions.md, "Context library"); a re-sync
// changes the words and keeps the person's enabled and disclosure. Enabled public documents feed generation;
// private, restricted and disabled ones never do (`feedsGeneration`).
import { assertNever, type Decider } from '../shared/decider.js';
import { InvalidFields, NotFound } from '../shared/errors.js';
import { deterministicUuid } from '../shared/ids.js';
import {
  contextDocumentEventCodec,
  disclosures,
  type ContextDocumentEvent,
  type ContextSourceType,
  type Disclosure,
} from './event-codec.js';

export const contextDocumentCategory = 'contextDocument';

export const documentLimits = {
  title: 300,
  /** Characters of plain text kept per document (the block-to-text path stops there). */
  contentText: 50_000,
  contentUrl: 2048,
} as const;

/** The default disclosure of a new document: private until a person makes it public. */
export const defaultDisclosure: Disclosure = 'private';

/** A document's id: one per source and page, whatever the workspace syncs it again. */
export const contextDocumentIdOf = (sourceId: string, externalId: string) =>
  deterministicUuid('context-document', sourceId, externalId);

export interface ContextDocument {
  documentId: string;
  orgId: string;
  sourceId: string;
  sourceType: ContextSourceType;
  externalId: string;
  title: string;
  contentText: string;
  contentUrl: string | null;
  enabled: boolean;
  disclosure: Disclosure;
  syncedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type ContextDocumentState =
  { status: 'none' } | { status: 'exists'; document: ContextDocument } | { status: 'deleted'; orgId: string };

export type ContextDocumentCommand =
  | {
      type: 'SyncContextDocument';
      orgId: string;
      documentId: string;
      sourceId: string;
      sourceType: ContextSourceType;
      externalId: string;
      title: string;
      contentText: string;
      contentUrl: string | null;
      now: string;
    }
  | {
      type: 'UpdateContextDocument';
      orgId: string;
      documentId: string;
      enabled?: boolean | undefined;
      disclosure?: Disclosure | undefined;
      now: string;
    }
  | { type: 'DeleteContextDocument'; orgId: string; documentId: string; now: string };

/** The workspace's document, or 404: another workspace's is not found either. */
export function contextDocumentOf(state: ContextDocumentState, orgId: string): ContextDocument {
  if (state.status !== 'exists' || state.document.orgId !== orgId)
    throw new NotFound('Context document not found');
  return state.document;
}

/** Whether a document may reach generated public text: enabled and public, nothing else. */
export const feedsGeneration = (d: Pick<ContextDocument, 'enabled' | 'disclosure'>) =>
  d.enabled && d.disclosure === 'public';

const clip = (text: string, max: number) => (text.length <= max ? text : text.slice(0, max));

export const contextDocumentDecider: Decider<
  ContextDocumentState,
  ContextDocumentCommand,
  ContextDocumentEvent
> = {
  initialState: { status: 'none' },
  codec: contextDocumentEventCodec,

  decide(command, state) {
    const ids = { orgId: command.orgId, documentId: command.documentId };
    switch (command.type) {
      case 'SyncContextDocument': {
        // A document deleted before is synced anew (a person asked for the page again): a fresh document.
        if (state.status === 'exists' && state.document.orgId !== command.orgId)
          throw new NotFound('Context document not found');
        const title = clip(command.title.trim(), documentLimits.title) || 'Untitled';
        const contentText = clip(command.contentText, documentLimits.contentText);
        const contentUrl =
          command.contentUrl && command.contentUrl.length <= documentLimits.contentUrl
            ? command.contentUrl
            : null;
        return [
          {
            type: 'ContextDocumentSynced',
            data: {
              ...ids,
              sourceId: command.sourceId,
              sourceType: command.sourceType,
              externalId: command.externalId,
              title,
              contentText,
              contentUrl,
              syncedAt: command.now,
            },
          },
        ];
      }
      case 'UpdateContextDocument': {
        const document = contextDocumentOf(state, command.orgId);
        if (
          command.disclosure !== undefined &&
          !(disclosures as readonly string[]).includes(command.disclosure)
        )
          throw new InvalidFields('Invalid disclosure', [
            { path: 'disclosure', message: `one of ${disclosures.join(', ')}` },
          ]);
        const enabled = command.enabled ?? document.enabled;
        const disclosure = command.disclosure ?? document.disclosure;
        if (enabled === document.enabled && disclosure === document.disclosure) return [];
        return [
          { type: 'ContextDocumentUpdated', data: { ...ids, enabled, disclosure, updatedAt: command.now } },
        ];
      }
      case 'DeleteContextDocument': {
        contextDocumentOf(state, command.orgId);
        return [{ type: 'ContextDocumentDeleted', data: { ...ids, deletedAt: command.now } }];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'ContextDocumentSynced': {
        const d = event.data;
        const before = state.status === 'exists' ? state.document : null;
        return {
          status: 'exists',
          document: {
            documentId: d.documentId,
            orgId: d.orgId,
            sourceId: d.sourceId,
            sourceType: d.sourceType,
            externalId: d.externalId,
            title: d.title,
            contentText: d.contentText,
            contentUrl: d.contentUrl,
            enabled: before?.enabled ?? true,
            disclosure: before?.disclosure ?? defaultDisclosure,
            syncedAt: d.syncedAt,
            createdAt: before?.createdAt ?? d.syncedAt,
            updatedAt: d.syncedAt,
          },
        };
      }
      case 'ContextDocumentUpdated': {
        if (state.status !== 'exists') return state;
        const d = event.data;
        return {
          status: 'exists',
          document: {
            ...state.document,
            enabled: d.enabled,
            disclosure: d.disclosure,
            updatedAt: d.updatedAt,
          },
        };
      }
      case 'ContextDocumentDeleted':
        return { status: 'deleted', orgId: event.data.orgId };
      default:
        return assertNever(event);
    }
  },
};

export interface ContextDocumentView {
  id: string;
  orgId: string;
  sourceId: string;
  sourceType: ContextSourceType;
  externalId: string;
  title: string;
  contentText: string;
  contentUrl: string | null;
  enabled: boolean;
  disclosure: Disclosure;
  syncedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export const contextDocumentView = (d: ContextDocument): ContextDocumentView => ({
  id: d.documentId,
  orgId: d.orgId,
  sourceId: d.sourceId,
  sourceType: d.sourceType,
  externalId: d.externalId,
  title: d.title,
  contentText: d.contentText,
  contentUrl: d.contentUrl,
  enabled: d.enabled,
  disclosure: d.disclosure,
  syncedAt: d.syncedAt,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});
