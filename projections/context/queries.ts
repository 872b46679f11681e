// Queries over the context library's read model: the workspace's sources and documents (GET ORG/context/sources
// and …/documents), and the documents a writer may be grounded in (`publicContextDocuments`, the writing
// context's `documents`): enabled and public only, newest sync first. Private, restricted and disabled documents
// are filtered here, in SQL, and again by the domain rule, so they never reach a prompt.
import type { Kysely } from 'kysely';
import type { ContextDocumentBrief } from '../../domain/ai/writing.js';
import {
  contextDocumentView,
  feedsGeneration,
  type ContextDocument,
  type ContextDocumentView,
} from '../../domain/context/document.js';
import {
  contextSourceView,
  type ContextSource,
  type ContextSourceView,
} from '../../domain/context/source.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import type { ReadModels } from '../read-models.js';
import type { ContextTables } from './context-projection.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyReadModels = Kysely<any>;
const tablesOf = (db: AnyReadModels | Kysely<ReadModels>) =>
  (db as AnyReadModels).withTables<ContextTables>() as Kysely<ContextTables>;

const parse = <T>(state: T | string | null): T | null =>
  typeof state === 'string' ? (JSON.parse(state) as T) : state;

/** Reading the library: every member (its documents are the workspace's own words). */
export const readingContext = (orgId: string) =>
  ({ orgId, permission: 'workspace:read', scope: null }) as const;

/** GET ORG/context/sources: every source of the workspace, disconnected ones too, oldest first. */
export async function listContextSources(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string },
): Promise<{ sources: ContextSourceView[] }> {
  authorize(caller, readingContext(input.orgId));
  const rows = await tablesOf(db)
    .selectFrom('context_sources')
    .select('state')
    .where('org_id', '=', input.orgId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return {
    sources: rows.flatMap((r) => {
      const s = parse<ContextSource>(r.state);
      return s ? [contextSourceView(s)] : [];
    }),
  };
}

/** The most documents GET ORG/context/documents answers (the library is small: pages picked by hand). */
export const documentListLimit = 500;

/** GET ORG/context/documents: the workspace's documents, newest sync first. */
export async function listContextDocuments(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string },
): Promise<{ documents: ContextDocumentView[] }> {
  authorize(caller, readingContext(input.orgId));
  const rows = await tablesOf(db)
    .selectFrom('context_documents')
    .select('state')
    .where('org_id', '=', input.orgId)
    .where('deleted', '=', false)
    .orderBy('synced_at', 'desc')
    .orderBy('id', 'asc')
    .limit(documentListLimit)
    .execute();
  return {
    documents: rows.flatMap((r) => {
      const d = parse<ContextDocument>(r.state);
      return d ? [contextDocumentView(d)] : [];
    }),
  };
}

/**
 * The documents writers are grounded in: enabled and public, newest sync first, at most `limit`. Private,
 * restricted and disabled documents are never read here.
 */
export async function publicContextDocuments(
  db: Kysely<ReadModels>,
  orgId: string,
  limit: number,
): Promise<ContextDocumentBrief[]> {
  const rows = await tablesOf(db)
    .selectFrom('context_documents')
    .select('state')
    .where('org_id', '=', orgId)
    .where('deleted', '=', false)
    .where('feeds', '=', true)
    .orderBy('synced_at', 'desc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  return rows.flatMap((r) => {
    const d = parse<ContextDocument>(r.state);
    return d && feedsGeneration(d) ? [{ id: d.documentId, title: d.title, text: d.contentText }] : [];
  });
}
