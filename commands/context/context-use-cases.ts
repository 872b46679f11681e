// The context library's use cases (issue 31): connect a Notion workspace through Notion's public OAuth (start,
// and the callback, which has no caller: the state names the starter), list and disconnect sources (the token is
// revoked at Notion, and a failure to revoke still disconnects, recorded), list a source's remote pages, sync
// picked pages into documents (one stream per document; `{ synced, failed }` page by page), and change or delete
// documents. A token Notion refuses puts the source in `error` with lastError. Roles: connecting and
// disconnecting are `settings:manage` (owners, admins: an integration of the workspace); reading pages, syncing
// and changing documents are `brand:write` (owners, admins, editors: the people who edit the brand's knowledge
// and its disclosure). No assistant scope covers any of it (the spec names no tool).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  contextDocumentDecider,
  contextDocumentCategory,
  contextDocumentIdOf,
  contextDocumentOf,
  contextDocumentView,
  type ContextDocumentCommand,
  type ContextDocumentState,
  type ContextDocumentView,
} from '../../domain/context/document.js';
import type { Disclosure } from '../../domain/context/event-codec.js';
import {
  assertReadable,
  contextSourceCategory,
  contextSourceDecider,
  contextSourceOf,
  contextSourceView,
  type ContextSourceCommand,
  type ContextSourceState,
  type ContextSourceView,
} from '../../domain/context/source.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  Conflict,
  ServiceUnavailable,
  ValidationError,
  type ErrorDetail,
} from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { isRole, permissionsOf } from '../../domain/workspaces/roles.js';
import { streamName } from '../../infra/event-store/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { NotionError } from '../../infra/notion/port.js';
import {
  isNotionError,
  searchLimit,
  type NotionErrorKind,
  type NotionGateway,
} from '../../infra/notion/port.js';
import type { ContextOAuthStates, ContextTokenStore } from '../../infra/notion/stores.js';
import type { ReadModels } from '../../projections/read-models.js';
import { findMembershipRole } from '../../projections/workspaces/queries.js';
import {
  handleCommand,
  loadAggregate,
  type CommandMetadata,
  type SideWriteOf,
} from '../shared/command-handler.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export interface ContextDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
  notion: NotionGateway;
  tokens: ContextTokenStore;
  oauthStates: ContextOAuthStates;
  /** The origins a redirectUri may be on: PUBLIC_BASE_URL's and APP_ORIGINS. */
  redirectOrigins: ReadonlySet<string>;
  /** Where Notion sends the user back: PUBLIC_BASE_URL/v1/context/oauth/notion/callback. */
  callbackUrl: string;
  logger?: Pick<Logger, 'warn' | 'info'> | undefined;
}

/** Connecting and disconnecting a source: owners and admins; no assistant. */
const managing = (orgId: string) => ({ orgId, permission: 'settings:manage', scope: null }) as const;
/** Reading remote pages, syncing, changing documents: owners, admins and editors; no assistant. */
const curating = (orgId: string) => ({ orgId, permission: 'brand:write', scope: null }) as const;

/** Pages one sync takes at most. */
export const syncPageLimit = 50;

const sourceStream = (sourceId: string) => streamName(contextSourceCategory, sourceId);
const documentStream = (documentId: string) => streamName(contextDocumentCategory, documentId);

/** A source's id: one per workspace and Notion workspace, so connecting it again reconnects the same source. */
export const contextSourceIdOf = (orgId: string, externalWorkspaceId: string) =>
  deterministicUuid('context-source', orgId, 'notion', externalWorkspaceId);

async function loadSource(deps: ContextDeps, sourceId: string): Promise<ContextSourceState> {
  return (await loadAggregate(deps.commands.eventStore, sourceStream(sourceId), contextSourceDecider)).state;
}

async function decideSource(
  deps: Pick<WriteDeps, 'commands'>,
  command: ContextSourceCommand,
  metadata: CommandMetadata,
  options: { answerFrom?: 'after' | 'before' } = {},
): Promise<ContextSourceView> {
  const outcome = await handleCommand(deps.commands, {
    stream: sourceStream(command.sourceId),
    decider: contextSourceDecider,
    command,
    metadata: { ...metadata, orgId: command.orgId },
  });
  const state = options.answerFrom === 'before' ? outcome.before : outcome.state;
  return contextSourceView(contextSourceOf(state, command.orgId));
}

async function decideDocument(
  deps: Pick<WriteDeps, 'commands'>,
  command: ContextDocumentCommand,
  metadata: CommandMetadata,
): Promise<ContextDocumentView> {
  const outcome = await handleCommand(deps.commands, {
    stream: documentStream(command.documentId),
    decider: contextDocumentDecider,
    command,
    metadata: { ...metadata, orgId: command.orgId },
  });
  return contextDocumentView(contextDocumentOf(outcome.state, command.orgId));
}

/** The stable codes of a Notion failure, in answers (409, 503, a sync's `failed[].error`). */
export const notionFailureCodes: Record<NotionErrorKind, string> = {
  unauthorized: 'notion_token_revoked',
  rate_limited: 'notion_rate_limited',
  not_found: 'page_not_shared',
  refused: 'notion_refused',
  unavailable: 'notion_unavailable',
};

/** A Notion failure of a listing as the API's error: 409 for a refused token (connect again), 503 otherwise. */
function notionFailure(error: NotionError): Error {
  const code = notionFailureCodes[error.kind];
  if (error.kind === 'unauthorized')
    return new Conflict(
      'Notion refused the source’s access token (revoked or expired): connect Notion again',
      code,
    );
  return new ServiceUnavailable(error.message, code);
}

/** Records the refused token on the source (status error, lastError); the refusal is then answered. */
async function recordTokenRefused(
  deps: ContextDeps,
  source: { orgId: string; sourceId: string },
  metadata: CommandMetadata,
): Promise<void> {
  await decideSource(
    deps,
    {
      type: 'RecordContextSourceError',
      orgId: source.orgId,
      sourceId: source.sourceId,
      error: 'Notion refused the access token (revoked in Notion or expired); connect Notion again',
      now: metadata.now,
    },
    metadata,
  );
}

function systemMetadata(caller: Caller, request: WriteRequest, orgId: string): CommandMetadata {
  return {
    orgId,
    actor: caller.userId,
    userId: caller.userId,
    correlationId: request.correlationId,
    causationId: null,
    now: request.now,
  };
}

// ----------------------------------------------------------------------------------------------- OAuth

export interface StartNotionInput {
  orgId: string;
  redirectUri: string;
  linkedinTarget?: 'profile' | 'page' | undefined;
  blueskyHandle?: string | undefined;
}

/**
 * POST ORG/context/sources/notion/oauth/start: a single-use state (10 minutes) and the URL to send the user to.
 * The body's `linkedinTarget` and `blueskyHandle` (copied into the spec from the social accounts' start) mean
 * nothing for Notion: 400 naming the field, as the social accounts' start refuses them for other platforms.
 */
export async function startNotionOAuth(
  deps: ContextDeps,
  caller: Caller,
  input: StartNotionInput,
  request: WriteRequest,
): Promise<Written<{ authorizationUrl: string; state: string }>> {
  authorize(caller, managing(input.orgId));
  const problems: ErrorDetail[] = [];
  if (!deps.redirectOrigins.has(new URL(input.redirectUri).origin))
    problems.push({
      path: 'redirectUri',
      message: 'must be on an allowed origin (PUBLIC_BASE_URL or APP_ORIGINS)',
    });
  if (input.linkedinTarget !== undefined)
    problems.push({ path: 'linkedinTarget', message: 'Only for LinkedIn accounts, not for Notion' });
  if (input.blueskyHandle !== undefined)
    problems.push({ path: 'blueskyHandle', message: 'Only for Bluesky accounts, not for Notion' });
  if (problems.length > 0) throw new ValidationError('Invalid request', undefined, problems);
  return runWrite(deps.idempotency, caller, request, async () => {
    const state = randomBytes(32).toString('base64url');
    await deps.oauthStates.save(state, {
      orgId: input.orgId,
      userId: caller.userId,
      sourceType: 'notion',
      redirectUri: input.redirectUri,
    });
    return {
      authorizationUrl: deps.notion.authorizationUrl({ state, redirectUri: deps.callbackUrl }),
      state,
    };
  });
}

export type NotionCallbackOutcome =
  | { status: 'connected'; sourceType: 'notion'; source: ContextSourceView; redirectUri: string }
  | {
      status: 'denied' | 'error';
      sourceType: 'notion';
      error: string;
      errorDescription: string | null;
      redirectUri: string | null;
    };

/**
 * GET /v1/context/oauth/notion/callback: the state is used up; the starter must still manage the workspace's
 * settings; the code is exchanged for the token, which is sealed before the source is recorded connected.
 */
export async function completeNotionOAuth(
  deps: ContextDeps,
  input: {
    state: string;
    /** Whether the callback came from the browser that started the authorization (its oauth/start cookie). */
    startedHere: boolean;
    code?: string | undefined;
    error?: string | undefined;
    errorDescription?: string | undefined;
  },
  request: { correlationId: string; now: string },
): Promise<NotionCallbackOutcome> {
  const failed = (
    error: string,
    errorDescription: string,
    redirectUri: string | null,
  ): NotionCallbackOutcome => ({
    status: 'error',
    sourceType: 'notion',
    error,
    errorDescription,
    redirectUri,
  });
  // Only the browser that started the authorization may complete it; the state stays open for that browser.
  if (!input.startedHere) {
    const openFor = await deps.oauthStates.openRedirectUri(input.state);
    if (openFor !== null)
      return failed(
        'browser_mismatch',
        'This authorization was started in another browser; start connecting Notion again in this one',
        openFor,
      );
    return failed(
      'invalid_state',
      'Unknown, expired or already used state; start connecting Notion again',
      null,
    );
  }
  const pending = await deps.oauthStates.consume(input.state);
  if (!pending)
    return failed(
      'invalid_state',
      'Unknown, expired or already used state; start connecting Notion again',
      null,
    );
  if (input.error !== undefined)
    return {
      status: input.error === 'access_denied' ? 'denied' : 'error',
      sourceType: 'notion',
      error: input.error,
      errorDescription: input.errorDescription ?? null,
      redirectUri: pending.redirectUri,
    };
  if (!input.code)
    return failed(
      'invalid_request',
      'The callback carries no code; start connecting Notion again',
      pending.redirectUri,
    );
  const role = await findMembershipRole(deps.readModels, pending.userId, pending.orgId);
  if (role === null || !isRole(role) || !permissionsOf(role).includes('settings:manage'))
    return failed(
      'not_allowed',
      'The user who started this connection can no longer manage the workspace’s settings',
      pending.redirectUri,
    );
  let grant;
  try {
    grant = await deps.notion.exchangeCode({ code: input.code, redirectUri: deps.callbackUrl });
  } catch (error) {
    if (!isNotionError(error)) throw error;
    deps.logger?.warn({ kind: error.kind }, 'Notion token exchange failed');
    return failed(
      error.kind === 'refused' || error.kind === 'unauthorized'
        ? 'notion_authorization_failed'
        : notionFailureCodes[error.kind],
      error.kind === 'refused' || error.kind === 'unauthorized'
        ? 'Notion refused the authorization; start connecting Notion again'
        : error.message,
      pending.redirectUri,
    );
  }
  const sourceId = contextSourceIdOf(pending.orgId, grant.workspaceId ?? randomBytes(16).toString('hex'));
  await deps.tokens.save(pending.orgId, sourceId, grant.accessToken);
  const metadata: CommandMetadata = {
    orgId: pending.orgId,
    actor: pending.userId,
    userId: pending.userId,
    correlationId: request.correlationId,
    causationId: null,
    now: request.now,
  };
  const source = await decideSource(
    deps,
    {
      type: 'ConnectContextSource',
      orgId: pending.orgId,
      sourceId,
      sourceType: 'notion',
      externalWorkspaceId: grant.workspaceId,
      workspaceName: grant.workspaceName,
      by: pending.userId,
      now: request.now,
    },
    metadata,
  );
  return { status: 'connected', sourceType: 'notion', source, redirectUri: pending.redirectUri };
}

// --------------------------------------------------------------------------------------------- Sources

/** DELETE ORG/context/sources/{sourceId}: revoke the token at Notion, forget it, and record the disconnect. */
export async function disconnectContextSource(
  deps: ContextDeps,
  caller: Caller,
  input: { orgId: string; sourceId: string },
  request: WriteRequest,
): Promise<Written<ContextSourceView>> {
  authorize(caller, managing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata }) => {
    const source = contextSourceOf(await loadSource(deps, input.sourceId), input.orgId);
    if (source.status === 'disconnected') return contextSourceView(source);
    const token = await deps.tokens.load(input.orgId, input.sourceId);
    let revoked = false;
    let revokeError: string | null = null;
    if (token !== null) {
      try {
        await deps.notion.revoke(token);
        revoked = true;
      } catch (error) {
        if (!isNotionError(error)) throw error;
        // A token Notion already refuses is as good as revoked; anything else is recorded, and we disconnect.
        if (error.kind === 'unauthorized') revoked = true;
        else revokeError = error.message;
        deps.logger?.warn({ kind: error.kind, sourceId: input.sourceId }, 'revoking a Notion token failed');
      }
    }
    await deps.tokens.delete(input.orgId, input.sourceId);
    return decideSource(
      deps,
      {
        type: 'DisconnectContextSource',
        orgId: input.orgId,
        sourceId: input.sourceId,
        revoked,
        revokeError,
        by: caller.userId,
        now: metadata.now,
      },
      metadata,
    );
  });
}

/** The source, readable (not disconnected), and its token; 409 when it has none left. */
async function readableSource(deps: ContextDeps, orgId: string, sourceId: string) {
  const source = contextSourceOf(await loadSource(deps, sourceId), orgId);
  assertReadable(source);
  const token = await deps.tokens.load(orgId, sourceId);
  if (token === null)
    throw new Conflict('The source has no access token: connect Notion again', 'source_disconnected');
  return { source, token };
}

/** GET ORG/context/sources/{sourceId}/pages: the pages shared with the integration, matching `query`. */
export async function listRemotePages(
  deps: ContextDeps,
  caller: Caller,
  input: { orgId: string; sourceId: string; query?: string | undefined },
  request: WriteRequest,
) {
  authorize(caller, curating(input.orgId));
  const { source, token } = await readableSource(deps, input.orgId, input.sourceId);
  try {
    const pages = await deps.notion.searchPages(token, { query: input.query, limit: searchLimit });
    return { pages };
  } catch (error) {
    if (!isNotionError(error)) throw error;
    deps.logger?.warn({ kind: error.kind, sourceId: source.sourceId }, 'listing Notion pages failed');
    if (error.kind === 'unauthorized')
      await recordTokenRefused(deps, source, systemMetadata(caller, request, input.orgId));
    throw notionFailure(error);
  }
}

/** Notion's page ids: 32 hex digits, with or without dashes; kept in the dashed, lower-case form. */
export function canonicalPageId(id: string): string | null {
  const hex = id.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface SyncResult {
  synced: ContextDocumentView[];
  failed: { pageId: string; error: string }[];
}

/**
 * POST ORG/context/sources/{sourceId}/sync: each page read as plain text and kept as the source's document (a
 * page synced before updates its document and keeps its enabled and disclosure). Page by page: a page Notion does
 * not share fails alone; a refused token fails the rest (and puts the source in error); a rate limit that
 * outlasts the retries fails the rest too (no more calls into a limit).
 */
export async function syncContextPages(
  deps: ContextDeps,
  caller: Caller,
  input: { orgId: string; sourceId: string; pageIds: string[] },
  request: WriteRequest,
): Promise<Written<SyncResult>> {
  authorize(caller, curating(input.orgId));
  const problems: ErrorDetail[] = [];
  const pageIds: string[] = [];
  input.pageIds.forEach((id, index) => {
    const canonical = canonicalPageId(id);
    if (canonical === null) problems.push({ path: `pageIds.${index}`, message: 'not a Notion page id' });
    else if (!pageIds.includes(canonical)) pageIds.push(canonical);
  });
  if (input.pageIds.length === 0) problems.push({ path: 'pageIds', message: 'at least one page id' });
  if (input.pageIds.length > syncPageLimit)
    problems.push({ path: 'pageIds', message: `at most ${syncPageLimit} pages per sync` });
  if (problems.length > 0) throw new ValidationError('Invalid request', undefined, problems);
  return runWrite(deps.idempotency, caller, request, async ({ metadata }) => {
    const { source, token } = await readableSource(deps, input.orgId, input.sourceId);
    const result: SyncResult = { synced: [], failed: [] };
    let stop: NotionError | null = null;
    for (const pageId of pageIds) {
      if (stop) {
        result.failed.push({ pageId, error: notionFailureCodes[stop.kind] });
        continue;
      }
      let content;
      try {
        content = await deps.notion.readPage(token, pageId);
      } catch (error) {
        if (!isNotionError(error)) throw error;
        deps.logger?.warn({ kind: error.kind, sourceId: source.sourceId }, 'reading a Notion page failed');
        result.failed.push({ pageId, error: notionFailureCodes[error.kind] });
        if (error.kind === 'unauthorized' || error.kind === 'rate_limited') stop = error;
        continue;
      }
      result.synced.push(
        await decideDocument(
          deps,
          {
            type: 'SyncContextDocument',
            orgId: input.orgId,
            documentId: contextDocumentIdOf(source.sourceId, pageId),
            sourceId: source.sourceId,
            sourceType: source.sourceType,
            externalId: pageId,
            title: content.page.title,
            contentText: content.text,
            contentUrl: content.page.url,
            now: metadata.now,
          },
          metadata,
        ),
      );
    }
    if (stop?.kind === 'unauthorized') await recordTokenRefused(deps, source, metadata);
    else if (result.synced.length > 0)
      await decideSource(
        deps,
        {
          type: 'RecordContextSync',
          orgId: input.orgId,
          sourceId: source.sourceId,
          synced: result.synced.length,
          failed: result.failed.length,
          now: metadata.now,
        },
        metadata,
      );
    return result;
  });
}

// ------------------------------------------------------------------------------------------- Documents

/** PATCH ORG/context/documents/{documentId}: enabled and disclosure; omitted fields stay. */
export async function updateContextDocument(
  deps: ContextDeps,
  caller: Caller,
  input: {
    orgId: string;
    documentId: string;
    enabled?: boolean | undefined;
    disclosure?: Disclosure | undefined;
  },
  request: WriteRequest,
): Promise<Written<ContextDocumentView>> {
  authorize(caller, curating(input.orgId));
  return runWrite(deps.idempotency, caller, request, ({ metadata, record }) =>
    decideDocumentRecorded(
      deps,
      {
        type: 'UpdateContextDocument',
        orgId: input.orgId,
        documentId: input.documentId,
        enabled: input.enabled,
        disclosure: input.disclosure,
        now: metadata.now,
      },
      metadata,
      record,
    ),
  );
}

/** DELETE ORG/context/documents/{documentId}: the document goes (a later sync of its page makes a new one). */
export async function deleteContextDocument(
  deps: ContextDeps,
  caller: Caller,
  input: { orgId: string; documentId: string },
  request: WriteRequest,
): Promise<Written<ContextDocumentView>> {
  authorize(caller, curating(input.orgId));
  return runWrite(deps.idempotency, caller, request, ({ metadata, record }) =>
    decideDocumentRecorded(
      deps,
      { type: 'DeleteContextDocument', orgId: input.orgId, documentId: input.documentId, now: metadata.now },
      metadata,
      record,
      'before',
    ),
  );
}

async function decideDocumentRecorded(
  deps: ContextDeps,
  command: ContextDocumentCommand,
  metadata: CommandMetadata,
  record: SideWriteOf<ContextDocumentView> | undefined,
  answerFrom: 'after' | 'before' = 'after',
): Promise<ContextDocumentView> {
  const pick = (o: { state: ContextDocumentState; before: ContextDocumentState }) =>
    contextDocumentView(contextDocumentOf(answerFrom === 'before' ? o.before : o.state, command.orgId));
  const outcome = await handleCommand(deps.commands, {
    stream: documentStream(command.documentId),
    decider: contextDocumentDecider,
    command,
    metadata: { ...metadata, orgId: command.orgId },
    sideWrite: record ? (trx, o) => record(trx, pick(o)) : undefined,
  });
  return pick(outcome);
}
