// Shared helpers of the post-group API tests: response types of the spec's shapes, a client bound to one
// workspace that speaks as a role, small builders for drafts and post groups, and an X Premium account.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import {
  connectSocialAccounts,
  socialAccountDeps,
} from '../../../commands/social-accounts/social-account-commands.js';
import type { ApprovalRecord } from '../../../domain/post-groups/post-group.js';
import type { PostGroupView, PostView } from '../../../domain/post-groups/views.js';
import type { Role } from '../../../domain/workspaces/roles.js';
import type { ErrorBody } from '../../../api/platform/errors.js';
import type { AuditEntry } from '../../../projections/post-groups/audit-trail.js';
import type { TestService } from '../../support/runtime.js';
import type { TestWorkspace } from '../../support/workspace.js';

// The answers' types are the ones the service renders them from, so the tests and the service cannot drift.
export type Approval = ApprovalRecord;
export type Group = PostGroupView;
export type Post = PostView;
export type { AuditEntry, ErrorBody };

export interface GroupWithPosts {
  group: Group;
  posts: Post[];
}

export interface History {
  groupId: string;
  revision: number;
  asOf: string | null;
  entries: AuditEntry[];
  group: Group;
  posts: Post[];
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const sha256Pattern = /^sha256:[0-9a-f]{64}$/;
export const quarterHourMs = 15 * 60_000;

/** A video every platform that needs media (YouTube, TikTok) accepts. */
export const video = {
  kind: 'video',
  assetId: '6f1c1d3e-8f7a-4b7e-9c1a-0d5e8a7b6c41',
  url: 'https://cdn.example.org/launch.mp4',
  contentType: 'video/mp4',
  sizeBytes: 1_048_576,
  durationSeconds: 30,
  width: 1080,
  height: 1920,
} as const;

export interface CallOptions {
  as?: Role;
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Requests against one workspace's `…/marketing` base, speaking as a role (owner unless told). */
export function workspaceClient(service: TestService, ws: TestWorkspace) {
  const call = (method: string, path: string, o: CallOptions = {}): Promise<Response> => {
    const token = o.token === null ? undefined : (o.token ?? ws.tokens[o.as ?? 'owner']);
    return service.request(method, `${ws.base}${path}`, {
      ...(token !== undefined ? { token } : {}),
      ...(o.body !== undefined ? { body: o.body } : {}),
      ...(o.headers ? { headers: o.headers } : {}),
    });
  };
  const client = {
    ws,
    call,
    async draft(body: unknown, as: Role = 'editor'): Promise<GroupWithPosts> {
      return data<GroupWithPosts>(await call('POST', '/drafts', { as, body }));
    },
    async compose(body: unknown, as: Role = 'editor'): Promise<GroupWithPosts> {
      return data<GroupWithPosts>(await call('POST', '/post-groups', { as, body }));
    },
    async get(groupId: string, as: Role = 'viewer'): Promise<GroupWithPosts> {
      return data<GroupWithPosts>(await call('GET', `/post-groups/${groupId}`, { as }));
    },
    async patch(groupId: string, body: unknown, as: Role = 'owner'): Promise<Group> {
      return data<Group>(await call('PATCH', `/post-groups/${groupId}`, { as, body }));
    },
    async approve(groupId: string, body?: unknown, as: Role = 'reviewer'): Promise<Group> {
      return data<Group>(await call('POST', `/post-groups/${groupId}/approve`, { as, body }));
    },
    async reject(groupId: string, body?: unknown, as: Role = 'reviewer'): Promise<Group> {
      return data<Group>(await call('POST', `/post-groups/${groupId}/reject`, { as, body }));
    },
    async schedule(groupId: string, body?: unknown, as: Role = 'reviewer'): Promise<Group> {
      return data<Group>(await call('POST', `/post-groups/${groupId}/schedule`, { as, body }));
    },
    async history(groupId: string, query = '', as: Role = 'owner'): Promise<History> {
      return data<History>(await call('GET', `/post-groups/${groupId}/history${query}`, { as }));
    },
    /** Every post of the workspace from the posts list (read model), newest first. */
    async posts(query = '?limit=100'): Promise<Post[]> {
      return (await data<{ items: Post[] }>(await call('GET', `/posts${query}`, { as: 'viewer' }))).items;
    },
  };
  return client;
}
export type WorkspaceClient = ReturnType<typeof workspaceClient>;

/** The `data` of a response, after checking its status (the body is shown when the status is wrong). */
export async function data<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (JSON.parse(text) as { data: T }).data;
}

/** The error body of a response, after checking its status. */
export async function failure(res: Response, status: number): Promise<ErrorBody> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as ErrorBody;
  expect(typeof body.error).toBe('string');
  return body;
}

/** Paths named in a 400's details. */
export async function badRequestPaths(res: Response): Promise<string[]> {
  const body = await failure(res, 400);
  expect(body.details?.length ?? 0, JSON.stringify(body)).toBeGreaterThan(0);
  return body.details!.map((d) => d.path);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const byId = <T extends { id: string }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** A draft with an X and a LinkedIn variant. */
export function twoPlatformDraft(title = 'Scheduler launch') {
  return {
    title,
    topic: 'launch',
    objective: 'awareness',
    posts: [
      { platform: 'x', contentText: `${title}: the scheduler is live` },
      { platform: 'linkedin', contentText: `${title}: today we open the scheduler to everyone.` },
    ],
  };
}

/**
 * Connects an X account with X Premium and answers its id. The sandbox connects X accounts without a
 * subscription, so this records the account the way the OAuth callback does, with the profile X answers for a
 * Premium subscriber (the tokens are never used: nothing publishes with it).
 */
export async function connectPremiumXAccount(service: TestService, ws: TestWorkspace): Promise<string> {
  const { runtime } = service;
  const handle = `premium_${randomUUID().slice(0, 8)}`;
  const [view] = await connectSocialAccounts(
    socialAccountDeps(runtime),
    {
      orgId: ws.orgId,
      platform: 'x',
      accounts: [
        {
          profile: {
            accountExternalId: `premium-${randomUUID()}`,
            accountName: 'Premium subscriber',
            accountHandle: handle,
            profileImageUrl: null,
            profileUrl: `https://x.com/${handle}`,
            accountBio: null,
            xSubscription: 'premium',
          },
          tokens: {
            accessToken: `unused-${randomUUID()}`,
            refreshToken: null,
            expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
            scopes: ['tweet.read', 'tweet.write', 'users.read'],
          },
        },
      ],
    },
    { orgId: ws.orgId, actor: ws.userIds.owner, correlationId: randomUUID(), now: new Date().toISOString() },
  );
  expect(view?.xPremium).toBe(true);
  return view!.id;
}
