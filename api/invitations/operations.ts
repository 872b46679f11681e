// The invitations slice's operations: GET, POST ORG/invitations, DELETE ORG/invitations/{invitationId} (owners
// and admins), and POST /v1/invitations/accept (any signed-in user; no workspace needed). Writes answer from the
// aggregate; the list comes from the invitations read model, with `expired` derived at the request's time. The
// slice's clock (`deps.now`, which tests move past an expiry) times every call, writes included.
import { z } from '@hono/zod-openapi';
import {
  acceptInvitation,
  createInvitation,
  revokeInvitation,
  type InvitationDeps,
} from '../../commands/invitations/invitation-use-cases.js';
import type { WriteRequest } from '../../commands/shared/write-pipeline.js';
import { listInvitations } from '../../projections/invitations/queries.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import type { SliceContext } from '../shared/slice.js';
import {
  acceptBody,
  acceptedSchema,
  createInvitationBody,
  invitationListItemSchema,
  invitationListQuery,
  invitationParams,
  invitationSchema,
  revokedSchema,
  toInvitationFilters,
} from './schemas.js';

export type InvitationsDeps = RouteServices & InvitationDeps & { now: () => Date };

/** The write request timed by the slice's clock rather than the runtime's. */
const timed = (deps: InvitationsDeps, request: WriteRequest): WriteRequest => ({
  ...request,
  now: deps.now().toISOString(),
});

const operation = operationsWith<InvitationsDeps>();
const base = '/v1/orgs/{orgId}/invitations';

/** The slice's operations, their use cases given the deps `depsOf` builds (the slice's clock and mailer). */
export function invitationOperations(depsOf: (ctx: SliceContext) => InvitationsDeps) {
  return operationGroup(depsOf, [
    operation({
      name: 'listInvitations',
      kind: 'read',
      method: 'get',
      path: base,
      tags: ['invitations'],
      summary: "The workspace's invitations (plain array), newest first by default",
      description: 'Owners and admins. Page size default 100, maximum 100.',
      params: orgParams,
      query: invitationListQuery.schema,
      output: z.array(invitationListItemSchema),
      outputDescription: 'Invitations',
      errors: [400, 401, 403],
      access: { permission: 'members:manage' },
      run: (deps, { caller }, { orgId, ...query }) =>
        listInvitations(deps.readModels, caller, {
          orgId,
          now: deps.now().toISOString(),
          query: {
            filters: toInvitationFilters(query.filters),
            sortBy: query.sortBy ?? 'createdAt',
            sortDir: query.sortDir,
            limit: query.limit,
            offset: query.offset,
          },
        }),
    }),
    operation({
      name: 'createInvitation',
      kind: 'write',
      method: 'post',
      path: base,
      tags: ['invitations'],
      summary: 'Invite an address with a role; the invitation link is mailed to it',
      description:
        'Owners and admins; only an owner may invite an owner. The link works once, for 7 days. ' +
        '409 `already_member` for an active member, `invitation_pending` while another invitation to the address is pending; ' +
        '503 `mail_not_sent` (nothing recorded) when the mail could not be sent.',
      params: orgParams,
      body: createInvitationBody,
      output: invitationSchema,
      outputDescription: 'The invitation',
      status: 201,
      errors: [400, 401, 403, 409, 413, 422, 503],
      access: { permission: 'members:manage' },
      run: (deps, { caller, request }, input) => createInvitation(deps, caller, input, timed(deps, request)),
    }),
    operation({
      name: 'revokeInvitation',
      kind: 'write',
      method: 'delete',
      path: `${base}/{invitationId}`,
      tags: ['invitations'],
      summary: 'Revoke an invitation; its link stops working',
      description: 'Revoking a revoked invitation answers the same; an accepted one is a 409.',
      params: invitationParams,
      output: revokedSchema,
      outputDescription: 'The invitation, revoked',
      errors: [400, 401, 403, 404, 409, 422, 503],
      access: { permission: 'members:manage' },
      run: (deps, { caller, request }, { orgId, invitationId }) =>
        revokeInvitation(deps, caller, { orgId, invitationId }, timed(deps, request)),
    }),
    operation({
      name: 'acceptInvitation',
      kind: 'write',
      method: 'post',
      path: '/v1/invitations/accept',
      tags: ['invitations'],
      summary: "Accept an invitation as the signed-in user, whose e-mail must be the invitation's",
      description:
        'A user-only token works. 404 `invitation_not_found`, 409 `invitation_already_accepted`, ' +
        '410 `invitation_revoked` or `invitation_expired`, 403 `invitation_email_mismatch`.',
      body: acceptBody,
      output: acceptedSchema,
      outputDescription: 'The workspace joined',
      errors: [400, 401, 403, 404, 409, 410, 413, 422, 503],
      access: { workspace: false, knownUser: true },
      run: (deps, { caller, request }, input) => acceptInvitation(deps, caller, input, timed(deps, request)),
    }),
  ]);
}
