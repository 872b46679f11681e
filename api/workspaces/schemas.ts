// The workspaces slice's schemas: workspaces and members as answered, the bodies of creating and changing them,
// and the list queries of GET /v1/orgs and GET ORG/members.
import { z } from '@hono/zod-openapi';
import { roles } from '../../domain/workspaces/roles.js';
import { maxWorkspaceNameLength, slugPattern } from '../../domain/workspaces/workspace.js';
import { defineListQuery } from '../platform/paging.js';
import { canonicalUuid, orgParams } from '../shared/params.js';

export const workspaceSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    status: z.string().openapi({ example: 'active' }),
    avatarUrl: z.string().nullable(),
    ownerId: z.uuid().nullable(),
    createdAt: z.string(),
    updatedAt: z.string().nullable(),
  })
  .openapi('Workspace');

export const workspaceListItemSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    status: z.string(),
    avatarUrl: z.string().nullable(),
    role: z.string().openapi({ example: 'owner' }),
    roleName: z.string().openapi({ example: 'Owner' }),
  })
  .openapi('WorkspaceListItem');

const workspaceName = z
  .string()
  .trim()
  .min(1)
  .max(maxWorkspaceNameLength)
  .openapi({ example: 'Acme Marketing' });
const workspaceSlug = z
  .string()
  .regex(slugPattern, 'lowercase letters, digits and inner hyphens, 1 to 63 characters')
  .openapi({ example: 'acme' });

export const createWorkspaceBody = z
  .object({ name: workspaceName, slug: workspaceSlug })
  .strict()
  .openapi('CreateWorkspace');

export const updateWorkspaceBody = z
  .object({
    name: workspaceName.optional(),
    slug: workspaceSlug.optional(),
    avatarUrl: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .optional()
      .openapi({
        example: 'https://cdn.example.org/acme.png',
        description:
          'An https URL, or the assetUrl of a logo uploaded through POST /v1/orgs/{orgId}/logo/upload-url; null removes it',
      }),
  })
  .strict()
  .refine((b) => b.name !== undefined || b.slug !== undefined || b.avatarUrl !== undefined, {
    message: 'Give name, slug, avatarUrl or several',
  })
  .openapi('UpdateWorkspace');

export const workspaceListQuery = defineListQuery({
  filters: {
    name: ['eq', 'contains'],
    slug: ['eq', 'contains'],
    status: { ops: ['eq', 'in'], value: z.enum(['active']) },
  },
  sortBy: ['name', 'slug', 'status'],
  defaultSort: { by: 'name', dir: 'asc' },
  defaultLimit: 100,
  maxLimit: 100,
});

export const memberSchema = z
  .object({
    id: z.uuid().openapi({ description: "The member's id in this workspace (not the user id)" }),
    userId: z.uuid(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    role: z.string().openapi({ example: 'Owner', description: "The role's display name" }),
    roleKey: z.string().openapi({ example: 'owner' }),
    status: z.string().openapi({ example: 'active', description: '`active` or `suspended`' }),
    joinedAt: z.string().nullable(),
  })
  .openapi('Member');

export const memberUpdateSchema = z
  .object({
    id: z.uuid(),
    roleId: z.uuid().nullable().openapi({ description: "The role's fixed id, the same in every workspace" }),
    status: z.string().nullable(),
  })
  .openapi('MemberUpdateResult');

const memberStatuses = ['active', 'suspended'] as const;

export const memberListQuery = defineListQuery({
  filters: {
    status: { ops: ['eq', 'in'], value: z.enum(memberStatuses) },
    roleKey: { ops: ['eq', 'in'], value: z.enum(roles) },
    email: ['eq', 'contains'],
    name: ['eq', 'contains'],
  },
  sortBy: ['joinedAt', 'createdAt', 'role', 'status', 'email', 'name'],
  defaultSort: { by: 'joinedAt', dir: 'asc' },
  defaultLimit: 50,
  maxLimit: 100,
});

export const updateMemberBody = z
  .object({
    roleKey: z.enum(roles).optional().openapi({ example: 'editor' }),
    status: z.enum(memberStatuses).optional(),
  })
  .strict()
  .refine((b) => b.roleKey !== undefined || b.status !== undefined, {
    message: 'Give roleKey, status or both',
  })
  .openapi('UpdateMember');

export const memberParams = orgParams.extend({
  memberId: canonicalUuid().openapi({ param: { name: 'memberId', in: 'path' } }),
});
