// The one billing access policy (issue 14, 402 enforcement): which requests and tool calls are writes or paid
// actions (written once, as data), and whether a workspace's subscription allows them now. An overdue workspace
// is read-only (every write 402 `subscription_overdue_read_only`, reads work); a workspace without a usable
// subscription (trial over, canceled, paused) gets 402 `subscription_required` on paid actions. Billing, leaving
// or deleting the workspace and one's own notifications stay writable.
//
// The answer comes from the subscriptions read model, evaluated with the clock (`accessOf`: past due and past
// its grace is read-only before the restricting event), cached per workspace in this process
// (infra/db/notified-cache.ts):
// - every process LISTENs on the channel the subscriptions projection notifies in the transaction that changes
//   a row, and drops that workspace when the notification arrives (at the commit);
// - the process folding the change hears of it before the commit and reads that workspace from the database
//   until the notification arrives (at most `settleMs`), so its own next request sees it (read-your-writes);
// - nothing is cached while the LISTEN connection is down or not started (`listen`), everything is dropped on
//   (re)connecting, and an entry lives at most `ttlMs`.
import type { Kysely } from 'kysely';
import {
  accessOf,
  type SubscriptionAccess,
  type SubscriptionState,
} from '../../domain/billing/subscription.js';
import { initialSubscriptionState } from '../../domain/billing/subscription.js';
import { PaymentRequired } from '../../domain/shared/errors.js';
import { memberIdOf } from '../../domain/workspaces/views.js';
import { NotifiedCache } from '../../infra/db/notified-cache.js';
import {
  BILLING_ACCESS_CHANNEL,
  onLocalAccessChange,
  subscriptionStateFromReadModel,
} from '../../projections/billing/subscriptions-projection.js';
import type { ReadModels } from '../../projections/read-models.js';

/** `write`: refused while read-only; `paid`: also refused without a usable subscription. */
export type AccessKind = 'write' | 'paid';

// ---- Which requests: the policy as data ----

/**
 * How a request to a workspace route counts, first match wins (after: GET, HEAD and OPTIONS never count).
 * `exempt`: stays writable when overdue; `paid`: needs a usable subscription; `paid-unless-no-schedule`: paid
 * unless the JSON body says `autoSchedule: false` (approving without scheduling). Anything else not matched
 * under /v1/orgs/{orgId} is a `write`.
 */
export interface AccessRule {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE' | '*';
  /** OpenAPI form; `{x}` is one segment, a trailing `/*` any rest (or none). */
  path: string;
  kind: 'exempt' | 'exempt-if-self' | 'paid' | 'paid-unless-no-schedule';
  why: string;
}

export const workspaceAccessRules: readonly AccessRule[] = [
  {
    method: '*',
    path: '/v1/orgs/{orgId}/billing/*',
    kind: 'exempt',
    why: 'billing, and fixing the payment, is how an overdue workspace gets out',
  },
  { method: 'DELETE', path: '/v1/orgs/{orgId}', kind: 'exempt', why: 'deleting the workspace' },
  {
    method: 'DELETE',
    path: '/v1/orgs/{orgId}/members/{memberId}',
    kind: 'exempt-if-self',
    why: 'leaving the workspace (your own member id); removing someone else is a write',
  },
  {
    method: '*',
    path: '/v1/orgs/{orgId}/notifications/*',
    kind: 'exempt',
    why: "the caller's own notifications: read, dismiss, preferences",
  },
  {
    method: 'POST',
    path: '/v1/orgs/{orgId}/marketing/posts/{postId}/post-now',
    kind: 'paid',
    why: 'publishes',
  },
  {
    method: 'POST',
    path: '/v1/orgs/{orgId}/marketing/post-groups/{groupId}/schedule',
    kind: 'paid',
    why: 'schedules publishing',
  },
  {
    method: 'POST',
    path: '/v1/orgs/{orgId}/marketing/post-groups/{groupId}/approve',
    kind: 'paid-unless-no-schedule',
    why: 'approving schedules unless autoSchedule is false',
  },
];

/** Assistant tools that are paid actions; every other tool not marked read-only is a write. */
export const paidToolRules: Readonly<Record<string, AccessRule['kind']>> = {
  post_now: 'paid',
  schedule_post_group: 'paid',
  approve_post_group: 'paid-unless-no-schedule',
};

const workspacePath = /^\/v1\/orgs\/([^/]+)(?:\/|$)/;

function compile(path: string): RegExp {
  const rest = path.endsWith('/*');
  const body = (rest ? path.slice(0, -2) : path)
    .split('/')
    .map((part) => (/^\{\w+\}$/.test(part) ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}${rest ? '(?:/.*)?' : ''}/?$`);
}

const compiledRules = workspaceAccessRules.map((rule) => ({ rule, pattern: compile(rule.path) }));

export interface AccessRequest {
  method: string;
  /** The request path as routed (ids canonicalised). */
  path: string;
  /** The caller's user id (for leaving: DELETE of one's own member id). */
  userId: string | null;
  /** Reads the JSON body when a rule needs it (approve's autoSchedule); undefined when there is none. */
  body: () => Promise<unknown>;
}

/** What a request needs of the workspace's subscription, or null when nothing (reads, exempt, not a workspace's). */
export async function accessKindOfRequest(
  request: AccessRequest,
): Promise<{ orgId: string; kind: AccessKind } | null> {
  const method = request.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return null;
  const org = workspacePath.exec(request.path);
  if (!org) return null;
  const orgId = org[1]!.toLowerCase();
  for (const { rule, pattern } of compiledRules) {
    if (rule.method !== '*' && rule.method !== method) continue;
    const match = pattern.exec(request.path);
    if (!match) continue;
    return kindOf(rule.kind, orgId, {
      memberId: match[2]?.toLowerCase(),
      userId: request.userId,
      body: request.body,
    });
  }
  return { orgId, kind: 'write' };
}

async function kindOf(
  kind: AccessRule['kind'],
  orgId: string,
  context: { memberId?: string | undefined; userId: string | null; body: () => Promise<unknown> },
): Promise<{ orgId: string; kind: AccessKind } | null> {
  switch (kind) {
    case 'exempt':
      return null;
    case 'exempt-if-self':
      return context.userId !== null && context.memberId === memberIdOf(orgId, context.userId)
        ? null
        : { orgId, kind: 'write' };
    case 'paid':
      return { orgId, kind: 'paid' };
    case 'paid-unless-no-schedule': {
      const body = await context.body().catch(() => undefined);
      const noSchedule =
        typeof body === 'object' &&
        body !== null &&
        (body as { autoSchedule?: unknown }).autoSchedule === false;
      return { orgId, kind: noSchedule ? 'write' : 'paid' };
    }
    default: {
      const never: never = kind;
      throw new Error(`unknown access rule kind ${String(never)}`);
    }
  }
}

/** What a tool call needs: nothing for read-only tools, paid for the publishing ones, else a write. */
export function accessKindOfTool(
  tool: { name: string; hints?: { readOnlyHint?: boolean } },
  input: unknown,
): AccessKind | null {
  if (tool.hints?.readOnlyHint === true) return null;
  const rule = paidToolRules[tool.name];
  if (rule === 'paid') return 'paid';
  if (rule === 'paid-unless-no-schedule') {
    const noSchedule =
      typeof input === 'object' &&
      input !== null &&
      (input as { autoSchedule?: unknown }).autoSchedule === false;
    return noSchedule ? 'write' : 'paid';
  }
  return 'write';
}

// ---- The decision ----

export const overdueMessage =
  "This workspace's payment is overdue, so it is read-only until the invoice is paid; billing stays available";
export const subscriptionRequiredMessage =
  'This action needs an active subscription: the trial has ended, or the subscription is canceled or paused';

/** Throws the 402 the action gets with this access, if any. */
export function enforce(access: SubscriptionAccess, kind: AccessKind): void {
  if (access.accessState === 'read_only')
    throw new PaymentRequired(overdueMessage, 'subscription_overdue_read_only');
  if (kind === 'paid' && !access.usable)
    throw new PaymentRequired(subscriptionRequiredMessage, 'subscription_required');
}

export interface BillingAccessOptions {
  db: Kysely<ReadModels>;
  now: () => Date;
  /** Longest life of a cached subscription (bounds a notification PostgreSQL lost without an error). */
  ttlMs?: number;
  /** Longest time a workspace whose change this process folds is read uncached, waiting for its notification. */
  settleMs?: number;
  maxEntries?: number;
  /** Whether to hear this process's own folds before their commit (tests of other instances turn it off). */
  followLocalChanges?: boolean;
}

export class BillingAccess {
  private readonly cache: NotifiedCache<SubscriptionState | null>;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: BillingAccessOptions) {
    this.cache = new NotifiedCache<SubscriptionState | null>({
      channel: BILLING_ACCESS_CHANNEL,
      name: 'billing-access-cache',
      keyOf: (orgId) => orgId,
      ttlMs: options.ttlMs,
      settleMs: options.settleMs,
      maxEntries: options.maxEntries,
    });
    this.unsubscribe =
      options.followLocalChanges === false
        ? () => undefined
        : onLocalAccessChange((orgId) => this.cache.changing(orgId));
  }

  /** Starts caching: LISTENs for the subscriptions projection's notifications (until `close`). */
  async listen(url: string): Promise<void> {
    await this.cache.listen(url);
  }

  /** The workspace's access now (a workspace without a subscription yet: a trial starting now, full). */
  async accessOf(orgId: string): Promise<SubscriptionAccess> {
    const state = await this.cache.get(orgId, () => subscriptionStateFromReadModel(this.options.db, orgId));
    return accessOf(state ?? { ...initialSubscriptionState, orgId }, this.options.now());
  }

  /** Throws 402 when the workspace's subscription does not allow the action now. */
  async check(orgId: string, kind: AccessKind): Promise<void> {
    enforce(await this.accessOf(orgId), kind);
  }

  forget(orgId: string): void {
    this.cache.forget(orgId);
  }

  clear(): void {
    this.cache.clear();
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.cache.close();
  }
}
