// The context library's operations (spec part 2, "Context library"), each declared once with its role rule, its
// credit cost (none: nothing here calls a model) and its errors: documents (GET, PATCH, DELETE), sources (GET,
// DELETE), a source's remote pages, sync, and Notion's oauth/start. The spec names no tool for any of them, so
// they are routes only. Notion's callback is a public route (routes.ts).
import { z } from '@hono/zod-openapi';
import {
  deleteContextDocument,
  disconnectContextSource,
  listRemotePages,
  startNotionOAuth,
  syncContextPages,
  updateContextDocument,
  type ContextDeps,
} from '../../commands/context/context-use-cases.js';
import { listContextDocuments, listContextSources } from '../../projections/context/queries.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import type { SliceContext } from '../shared/slice.js';
import type { NotionEnv } from '../../infra/notion/settings.js';
import type { PlatformEnv } from '../platform/settings.js';
import {
  contextDocumentSchema,
  contextSourceSchema,
  documentParams,
  notionStartBody,
  notionStartResult,
  remotePageSchema,
  remotePagesQuery,
  sourceParams,
  syncBody,
  syncResult,
  updateDocumentBody,
} from './schemas.js';
import { bindNotionAuthorization } from './browser-binding.js';
import { contextDepsOf } from './services.js';

const operation = operationsWith<ContextDeps>();
const org = '/v1/orgs/{orgId}/context';
const tags = ['context'];
/** Reading the library: every member. */
const reading = { permission: 'workspace:read', billing: null } as const;
/** Connecting and disconnecting Notion: owners and admins (an integration of the workspace). */
const managing = { permission: 'settings:manage' } as const;
/** Reading Notion's pages, syncing and changing documents: owners, admins and editors. */
const curating = { permission: 'brand:write' } as const;

export const contextOperations = operationGroup(
  (ctx: SliceContext) => contextDepsOf(ctx as SliceContext<never, PlatformEnv & NotionEnv>),
  [
    operation({
      name: 'listContextDocuments',
      kind: 'read',
      method: 'get',
      path: `${org}/documents`,
      tags,
      summary: "The workspace's context documents (Notion pages copied as plain text), newest sync first",
      params: orgParams,
      output: z.object({ documents: z.array(contextDocumentSchema) }),
      outputDescription: 'The documents',
      errors: [400, 401, 403],
      access: reading,
      run: (deps, { caller }, input) => listContextDocuments(deps.readModels, caller, input),
    }),
    operation({
      name: 'updateContextDocument',
      kind: 'write',
      method: 'patch',
      path: `${org}/documents/{documentId}`,
      tags,
      summary:
        'Enable or disable a document, or set its disclosure; only enabled public documents feed post generation',
      params: documentParams,
      body: updateDocumentBody,
      output: contextDocumentSchema,
      outputDescription: 'The document',
      errors: [400, 401, 402, 403, 404, 409, 422, 503],
      access: curating,
      run: (deps, { caller, request }, input) => updateContextDocument(deps, caller, input, request),
    }),
    operation({
      name: 'deleteContextDocument',
      kind: 'write',
      method: 'delete',
      path: `${org}/documents/{documentId}`,
      tags,
      summary: 'Delete a document (a later sync of its page makes a new one); answers it as it was',
      params: documentParams,
      output: contextDocumentSchema,
      outputDescription: 'The deleted document',
      errors: [400, 401, 403, 404, 409, 422, 503],
      // Taking a copy of third-party data out stays open while the subscription is overdue.
      access: { ...curating, billing: null },
      run: (deps, { caller, request }, input) => deleteContextDocument(deps, caller, input, request),
    }),
    operation({
      name: 'listContextSources',
      kind: 'read',
      method: 'get',
      path: `${org}/sources`,
      tags,
      summary: "The workspace's context sources (connected Notion workspaces), disconnected ones too",
      params: orgParams,
      output: z.object({ sources: z.array(contextSourceSchema) }),
      outputDescription: 'The sources',
      errors: [400, 401, 403],
      access: reading,
      run: (deps, { caller }, input) => listContextSources(deps.readModels, caller, input),
    }),
    operation({
      name: 'disconnectContextSource',
      kind: 'write',
      method: 'delete',
      path: `${org}/sources/{sourceId}`,
      tags,
      summary:
        'Disconnect a source: its token is revoked at Notion (a failed revocation still disconnects, in lastError) and forgotten; its documents stay',
      params: sourceParams,
      output: contextSourceSchema,
      outputDescription: 'The source, disconnected',
      errors: [400, 401, 403, 404, 409, 422, 503],
      // Cutting off access to a Notion workspace stays open while the subscription is overdue.
      access: { ...managing, billing: null },
      run: (deps, { caller, request }, input) => disconnectContextSource(deps, caller, input, request),
    }),
    operation({
      name: 'listContextSourcePages',
      kind: 'read',
      method: 'get',
      path: `${org}/sources/{sourceId}/pages`,
      tags,
      summary:
        'The Notion pages shared with the integration (at most 100), matching the query; 409 when Notion refuses the token (the source goes to error)',
      params: sourceParams,
      query: remotePagesQuery,
      output: z.object({ pages: z.array(remotePageSchema) }),
      outputDescription: 'Remote pages',
      errors: [400, 401, 403, 404, 409, 503],
      access: curating,
      run: (deps, { caller, request }, input) => listRemotePages(deps, caller, input, request),
    }),
    operation({
      name: 'syncContextSource',
      kind: 'write',
      method: 'post',
      path: `${org}/sources/{sourceId}/sync`,
      tags,
      summary:
        'Copy pages as plain text into documents (a page synced before is updated and keeps its enabled and disclosure); page by page, { synced, failed }',
      params: sourceParams,
      body: syncBody,
      output: syncResult,
      outputDescription: 'The documents synced and the pages that failed, with why',
      errors: [400, 401, 402, 403, 404, 409, 413, 422, 503],
      access: curating,
      run: (deps, { caller, request }, input) => syncContextPages(deps, caller, input, request),
    }),
    operation({
      name: 'startNotionOAuth',
      kind: 'write',
      method: 'post',
      path: `${org}/sources/notion/oauth/start`,
      tags,
      summary:
        "Start connecting Notion: the URL to send the user to (Notion's consent, or the sandbox's) and the single-use state",
      description:
        'Call it from the browser that will go through the authorization (the web app, with the user’s token): ' +
        'the answer sets an HttpOnly cookie binding the authorization to that browser; the callback reached from ' +
        'any other browser (a forwarded link) connects nothing (`browser_mismatch`).',
      middleware: [bindNotionAuthorization],
      params: orgParams,
      body: notionStartBody,
      output: notionStartResult,
      outputDescription: 'Where to send the user',
      errors: [400, 401, 402, 403, 413, 422],
      access: managing,
      run: (deps, { caller, request }, input) => startNotionOAuth(deps, caller, input, request),
    }),
  ],
);
