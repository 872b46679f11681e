// The social accounts slice's operations: GET ORG/marketing/accounts (Tool: list_social_accounts), PATCH and
// DELETE ORG/marketing/accounts/{accountId}, GET …/{accountId}/tiktok/creator-info, and connecting accounts
// without leaving the API: POST …/accounts/bluesky/connect (an app password) and GET, POST
// ORG/marketing/linkedin-pages (a pending page choice). Writes answer from the aggregate; the list comes from
// the read model. Starting an OAuth authorization and the platforms' callbacks stay routes (oauth-routes.ts).
import { z } from '@hono/zod-openapi';
import {
  blueskyHandleOf,
  connectBlueskyAccount,
  connectLinkedinPages,
  listLinkedinPages,
} from '../../commands/social-accounts/connection-use-cases.js';
import { socialAccountDeps } from '../../commands/social-accounts/social-account-commands.js';
import {
  deleteSocialAccount,
  getTiktokCreatorInfo,
  updateSocialAccount,
} from '../../commands/social-accounts/social-account-use-cases.js';
import { listSocialAccounts } from '../../projections/social-accounts/queries.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import type { SliceContext } from '../shared/slice.js';
import { connectionDepsOf } from './oauth-routes.js';
import {
  blueskyConnectBody,
  linkedinPagesBody,
  linkedinPagesQuery,
  linkedinPagesResult,
} from './oauth-schemas.js';
import {
  accountParams,
  socialAccountSchema,
  tiktokCreatorInfoSchema,
  updateSocialAccountBody,
} from './schemas.js';

function socialAccountOperationDeps(ctx: SliceContext) {
  const services: RouteServices = ctx.services;
  return {
    services,
    accounts: { ...socialAccountDeps(services), idempotency: services.idempotency },
    /** What the connection use cases need, with the request's logger (the service's for tool calls). */
    connection: connectionDepsOf(services),
    logger: ctx.logger,
  };
}

const operation = operationsWith<ReturnType<typeof socialAccountOperationDeps>>();
const accounts = '/v1/orgs/{orgId}/marketing/accounts';

export const socialAccountOperations = operationGroup(socialAccountOperationDeps, [
  operation({
    name: 'list_social_accounts',
    kind: 'read',
    method: 'get',
    path: accounts,
    tags: ['marketing'],
    summary:
      "The workspace's social accounts (deleted ones are not listed); an id is a post's socialAccountId",
    params: orgParams,
    output: z.array(socialAccountSchema),
    outputDescription: 'Social accounts, by platform then connection time',
    errors: [400, 401, 403],
    access: { permission: 'posts:read', scope: 'mcp:read' },
    tool: {
      title: 'List connected social accounts',
      description:
        'Lists the workspace’s connected social accounts (platform, name, handle, status), by platform then in ' +
        'connection order. Use it to know which platforms a draft can target.',
      hints: { readOnlyHint: true, openWorldHint: false },
      // A tool answers an object: the list goes under `items` (REST answers it as it is).
      answer: async (_deps, _call, _input, items) => ({ items }),
      summary: ({ items }) => `${items.length} connected account(s).`,
    },
    run: ({ services }, { caller }, { orgId }) => listSocialAccounts(services.readModels, caller, { orgId }),
  }),
  operation({
    name: 'updateSocialAccount',
    kind: 'write',
    method: 'patch',
    path: `${accounts}/{accountId}`,
    tags: ['marketing'],
    summary: "Set the account's profile URL (null clears it); it is kept over the platform's on a reconnect",
    params: accountParams,
    body: updateSocialAccountBody,
    output: socialAccountSchema,
    outputDescription: 'The account',
    errors: [400, 401, 403, 404, 409, 413, 422, 503],
    access: { permission: 'accounts:manage' },
    run: (deps, { caller, request }, input) => updateSocialAccount(deps.accounts, caller, input, request),
  }),
  operation({
    name: 'deleteSocialAccount',
    kind: 'write',
    method: 'delete',
    path: `${accounts}/{accountId}`,
    tags: ['marketing'],
    summary: 'Remove the account and its stored access; answers with the account as it was',
    params: accountParams,
    output: socialAccountSchema,
    outputDescription: 'The deleted account',
    errors: [400, 401, 403, 404, 409, 422, 503],
    access: { permission: 'accounts:manage' },
    run: (deps, { caller, request }, input) => deleteSocialAccount(deps.accounts, caller, input, request),
  }),
  operation({
    name: 'getTiktokCreatorInfo',
    kind: 'read',
    method: 'get',
    path: `${accounts}/{accountId}/tiktok/creator-info`,
    tags: ['marketing'],
    summary:
      'What TikTok lets this creator post now (privacy levels, interactions, video length); 400 for accounts of other platforms',
    params: accountParams,
    output: tiktokCreatorInfoSchema,
    outputDescription: 'Creator info, as TikTok answers it',
    errors: [400, 401, 403, 404, 409, 503],
    access: { permission: 'posts:read' },
    run: (deps, { caller, logger, signal }, input) =>
      getTiktokCreatorInfo({ ...deps.accounts, logger: logger ?? deps.logger }, caller, input, {
        ...(signal ? { signal } : {}),
      }),
  }),
  operation({
    name: 'connectBlueskyAccount',
    kind: 'write',
    method: 'post',
    path: `${accounts}/bluesky/connect`,
    tags: ['marketing'],
    summary: 'Connect a Bluesky account with an app password (the password is used once and never kept)',
    params: orgParams,
    body: blueskyConnectBody,
    // The Idempotency-Key is bound to the handle only, so no record keeps a digest of the password.
    idempotencyBody: (body) => ({ handle: blueskyHandleOf(body.handle) }),
    output: socialAccountSchema,
    outputDescription: 'The connected account',
    errors: [400, 401, 403, 413, 422, 503],
    access: { permission: 'accounts:manage' },
    run: (deps, { caller, request, logger }, input) =>
      connectBlueskyAccount(deps.connection(logger), caller, input, request),
  }),
  operation({
    name: 'listLinkedinPages',
    kind: 'read',
    method: 'get',
    path: '/v1/orgs/{orgId}/marketing/linkedin-pages',
    tags: ['marketing'],
    summary: 'The LinkedIn pages a pending choice offers',
    params: orgParams,
    query: linkedinPagesQuery,
    output: linkedinPagesResult,
    outputDescription: 'Pages the member administers',
    errors: [400, 401, 403, 404],
    access: { permission: 'accounts:manage' },
    run: (deps, { caller, logger }, input) => listLinkedinPages(deps.connection(logger), caller, input),
  }),
  operation({
    name: 'connectLinkedinPages',
    kind: 'write',
    method: 'post',
    path: '/v1/orgs/{orgId}/marketing/linkedin-pages',
    tags: ['marketing'],
    summary: 'Connect the LinkedIn pages picked from a pending choice',
    params: orgParams,
    body: linkedinPagesBody,
    output: z.array(socialAccountSchema),
    outputDescription: 'The connected pages',
    errors: [400, 401, 403, 404, 413, 422, 503],
    access: { permission: 'accounts:manage' },
    run: (deps, { caller, request, logger }, input) =>
      connectLinkedinPages(deps.connection(logger), caller, input, request),
  }),
]);
