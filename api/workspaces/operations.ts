// The workspaces slice's operations: POST /v1/orgs (create; the caller becomes owner), GET /v1/orgs (the
// caller's workspaces), GET, PATCH and DELETE /v1/orgs/{orgId}, POST ORG/logo/upload-url (a slot to upload the
// logo, shown once PATCH sets avatarUrl to its assetUrl), GET ORG/members (filters, sorts, paging), PATCH and
// DELETE ORG/members/{memberId}. Lists come from the workspaces read model (members joined with users'
// profiles); writes answer from the aggregate.
import { z } from '@hono/zod-openapi';
import {
  createLogoUploadUrl,
  imageContentTypes,
  maxImageBytes,
} from '../../commands/shared/image-uploads.js';
import {
  createWorkspace,
  deleteWorkspace,
  removeMember,
  updateMember,
  updateWorkspace,
} from '../../commands/workspaces/workspace-use-cases.js';
import { memberIdOf } from '../../domain/workspaces/views.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import { getWorkspace, listMembers, listWorkspaces } from '../../projections/workspaces/queries.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { imageUploadBody, logoUploadSlotSchema } from '../users/schemas.js';
import {
  createWorkspaceBody,
  memberListQuery,
  memberParams,
  memberSchema,
  memberUpdateSchema,
  updateMemberBody,
  updateWorkspaceBody,
  workspaceListItemSchema,
  workspaceListQuery,
  workspaceSchema,
} from './schemas.js';

export type WorkspaceDeps = RouteServices & { storage: ObjectStorage };

const operation = operationsWith<WorkspaceDeps>();
const path = '/v1/orgs/{orgId}';

export const workspaceOperations = operationGroup(
  (ctx): WorkspaceDeps => ({ ...ctx.services, storage: ctx.storage }),
  [
    operation({
      name: 'createWorkspace',
      kind: 'write',
      method: 'post',
      path: '/v1/orgs',
      tags: ['orgs'],
      summary: 'Create a workspace; the caller becomes its owner',
      body: createWorkspaceBody,
      output: workspaceSchema,
      outputDescription: 'Created',
      status: 201,
      errors: [400, 401, 409, 413, 422, 503],
      access: { workspace: false, knownUser: true },
      run: (deps, { caller, request }, input) => createWorkspace(deps, caller, input, request),
    }),
    operation({
      name: 'listWorkspaces',
      kind: 'read',
      method: 'get',
      path: '/v1/orgs',
      tags: ['orgs'],
      summary: "The caller's workspaces, with the caller's role in each",
      query: workspaceListQuery.schema,
      output: z.array(workspaceListItemSchema),
      outputDescription: 'Workspaces (plain array)',
      errors: [400, 401],
      access: { workspace: false },
      run: (deps, { caller }, query) =>
        listWorkspaces(deps.readModels, caller, {
          limit: query.limit,
          offset: query.offset,
          sortBy: query.sortBy,
          sortDir: query.sortDir,
          filters: query.filters.map((f) =>
            f.op === 'in'
              ? { field: f.field, op: f.op, values: f.values.map(String) }
              : { field: f.field, op: f.op, value: String(f.value) },
          ),
        }),
    }),
    operation({
      name: 'getWorkspace',
      kind: 'read',
      method: 'get',
      path,
      tags: ['orgs'],
      summary: 'The workspace',
      params: orgParams,
      output: workspaceSchema,
      outputDescription: 'The workspace',
      errors: [400, 401, 403, 404, 410],
      access: { permission: 'workspace:read' },
      run: (deps, { caller }, { orgId }) => getWorkspace(deps.readModels, caller, orgId),
    }),
    operation({
      name: 'updateWorkspace',
      kind: 'write',
      method: 'patch',
      path,
      tags: ['orgs'],
      summary: "Change the workspace's name, slug or avatar (owners and admins)",
      description:
        'Omitted fields stay; `avatarUrl: null` removes the avatar. A slug another workspace uses is a 409 ' +
        '`slug_taken`; the old slug is free for others a minute after the change.',
      params: orgParams,
      body: updateWorkspaceBody,
      output: workspaceSchema,
      outputDescription: 'The workspace',
      errors: [400, 401, 403, 404, 409, 410, 413, 422, 503],
      access: { permission: 'workspace:manage' },
      run: (deps, { caller, request }, { orgId, ...changes }) =>
        updateWorkspace(deps, caller, { orgId, changes }, request),
    }),
    operation({
      name: 'deleteWorkspace',
      kind: 'write',
      method: 'delete',
      path,
      tags: ['orgs'],
      summary: 'Delete the workspace (owners only)',
      description:
        "A soft delete: the history is kept, the workspace leaves every member's list, its slug is free again a " +
        'minute later, its scheduled posts are not published, and every later call for it answers 410 ' +
        '`workspace_deleted` (also the token exchange to it).',
      params: orgParams,
      output: null,
      outputDescription: 'Deleted (no body)',
      errors: [400, 401, 403, 410, 422, 503],
      // Deleting the workspace stays possible while it is read-only (overdue).
      access: { permission: 'workspace:delete', billing: null },
      run: (deps, { caller, request }, { orgId }) => deleteWorkspace(deps, caller, { orgId }, request),
    }),
    operation({
      name: 'listMembers',
      kind: 'read',
      method: 'get',
      path: `${path}/members`,
      tags: ['members'],
      summary: "The workspace's members (active and suspended), with their profile",
      params: orgParams,
      query: memberListQuery.schema,
      output: z.array(memberSchema),
      outputDescription: 'Members (plain array)',
      errors: [400, 401, 403, 410],
      access: { permission: 'workspace:read' },
      run: (deps, { caller }, { orgId, ...query }) =>
        listMembers(deps.readModels, caller, orgId, {
          limit: query.limit,
          offset: query.offset,
          ...(query.sortBy !== undefined ? { sortBy: query.sortBy } : {}),
          sortDir: query.sortDir,
          filters: query.filters.map((f) =>
            f.op === 'in'
              ? { field: f.field, op: 'in' as const, values: f.values.map(String) }
              : {
                  field: f.field,
                  op: f.op === 'contains' ? ('contains' as const) : ('eq' as const),
                  value: String(f.value),
                },
          ),
        }),
    }),
    operation({
      name: 'updateMember',
      kind: 'write',
      method: 'patch',
      path: `${path}/members/{memberId}`,
      tags: ['members'],
      summary: "Change a member's role or suspend / reactivate them (owners and admins)",
      description:
        'Only an owner may grant, change or remove the owner role. The last active owner can be neither demoted ' +
        'nor suspended (409 `last_owner`). A suspended member is refused on their next request ' +
        '(403 `membership_suspended`) until reactivated.',
      params: memberParams,
      body: updateMemberBody,
      output: memberUpdateSchema,
      outputDescription: 'The member update result',
      errors: [400, 401, 403, 404, 409, 410, 413, 422, 503],
      access: { permission: 'members:manage' },
      run: (deps, { caller, request }, { orgId, memberId, roleKey, status }) =>
        updateMember(
          deps,
          caller,
          {
            orgId,
            memberId,
            ...(roleKey !== undefined ? { role: roleKey } : {}),
            ...(status !== undefined ? { status } : {}),
          },
          request,
        ),
    }),
    operation({
      name: 'removeMember',
      kind: 'write',
      method: 'delete',
      path: `${path}/members/{memberId}`,
      tags: ['members'],
      summary: 'Remove a member (owners and admins), or leave the workspace (your own member id)',
      description:
        'Only an owner removes an owner; the last active owner stays (409 `last_owner`). A removed member ' +
        "loses access at once; the workspace's history keeps what they did.",
      params: memberParams,
      output: null,
      outputDescription: 'Removed (no body)',
      errors: [400, 401, 403, 404, 409, 410, 422, 503],
      // Whether the role allows it depends on whom it removes (leaving needs no permission): the use case
      // checks. Leaving (one's own member id) stays possible while the workspace is read-only.
      access: {
        billing: ({ orgId, memberId }, caller) =>
          memberId === memberIdOf(orgId, caller.userId) ? null : 'write',
      },
      run: (deps, { caller, request }, { orgId, memberId }) =>
        removeMember(deps, caller, { orgId, memberId }, request),
    }),
    operation({
      name: 'createWorkspaceLogoUploadUrl',
      kind: 'write',
      method: 'post',
      path: `${path}/logo/upload-url`,
      tags: ['orgs'],
      summary: `A slot to upload the workspace logo (${Object.keys(imageContentTypes).join(', ')}, at most ${maxImageBytes} bytes); owners and admins`,
      params: orgParams,
      body: imageUploadBody,
      output: logoUploadSlotSchema,
      outputDescription: 'The upload slot',
      errors: [400, 401, 403, 413, 422],
      access: { permission: 'workspace:manage' },
      run: (deps, { caller, request }, { orgId, contentType }) =>
        createLogoUploadUrl(deps, caller, { orgId, contentType }, request),
    }),
  ],
);
