// What a notification is and how a slice says which of its events notify whom: each slice's rules are a pure
// function from its domain event (and the facts the notifications read model keeps about its group and workspace)
// to notifications, each with its tier, recipients rule and dedupeKey (domain/<slice>/notification-rules.ts).
import type { DomainEvent, EventCodec } from '../shared/event-codec.js';
import { rolePermissions, type Permission, type Role } from '../workspaces/roles.js';

export const tiers = ['action_required', 'meaningful_win', 'routine'] as const;
export type Tier = (typeof tiers)[number];

/**
 * A notification's type, snake_case (the spec leaves the values open): each slice's rules name theirs
 * (domain/<slice>/notification-rules.ts), e.g. `approval_requested`, `account_needs_reconnect`, `payment_failed`.
 */
export type NotificationType = string;

/** Who is to be told, resolved against the workspace's active members at that point of the log. */
export type RecipientRule =
  /** Members whose role grants the permission, except the one who acted. */
  | { kind: 'permission'; permission: Permission; except: string | null }
  /** These users (those still active members), or when none of them is, members with the fallback permission. */
  | { kind: 'users'; userIds: readonly string[]; fallback: Permission | null; except: string | null }
  /** Every active member. */
  | { kind: 'everyone' };

export interface NotificationIntent {
  orgId: string;
  tier: Tier;
  type: NotificationType;
  title: string;
  body: string | null;
  href: string | null;
  recipients: RecipientRule;
  /** One cause notifies once: the key is unique per workspace, and each recipient gets one row for it. */
  dedupeKey: string;
  metadata: Record<string, string | number | null>;
  /** When the cause happened (the event's time). */
  createdAt: string;
}

/** What the read model knows of a post group: who drafted it, who approved it, its title. */
export interface GroupFacts {
  title: string;
  createdBy: string;
  approvers: readonly string[];
}

export interface RuleContext {
  /** The event's post group, when it has one and the group is known. */
  group: GroupFacts | null;
  /** For PostPublished: how many distinct posts the workspace has published, this one included. */
  publishedCount?: number;
}

/**
 * One slice's notification rules (domain/<slice>/notification-rules.ts): which of its events notify, read with
 * its codec, and whom each notifies. The slice contributes them to the notifications read model
 * (`contribute(notificationRules, …)` in api/<slice>/slice.ts); nothing lists them centrally.
 */
export interface NotificationRules {
  readonly codec: EventCodec<DomainEvent>;
  /** The codec's event types that may notify. */
  readonly types: readonly string[];
  /** The notifications one such event causes (none, one or more), given what the read model knows. */
  notify(event: DomainEvent, context: RuleContext): NotificationIntent[];
}

/** One slice's rules as it declares them: typed by its codec's events (assignable to NotificationRules). */
export interface SliceNotificationRules<E extends DomainEvent, T extends E['type']> {
  readonly codec: EventCodec<E>;
  readonly types: readonly T[];
  notify(event: Extract<E, { type: T }>, context: RuleContext): NotificationIntent[];
}

export function defineNotificationRules<E extends DomainEvent, const T extends E['type']>(
  codec: EventCodec<E>,
  types: readonly T[],
  notify: (event: Extract<E, { type: T }>, context: RuleContext) => NotificationIntent[],
): SliceNotificationRules<E, T> {
  for (const type of types)
    if (!codec.knows(type)) throw new Error(`${codec.slice}: ${String(type)} is not one of its event types`);
  return { codec, types, notify };
}

/** Several slices' rules as one: the event types that notify, and the notifications an event causes. */
export function notifierOf(rules: readonly NotificationRules[]) {
  const byType = new Map<string, NotificationRules>();
  for (const r of rules)
    for (const type of r.types) {
      if (byType.has(type)) throw new Error(`notifications: two slices' rules notify on ${type}`);
      byType.set(type, r);
    }
  return {
    types: [...byType.keys()],
    notifies: (type: string) => byType.has(type),
    notificationsFor: (event: DomainEvent, context: RuleContext): NotificationIntent[] =>
      byType.get(event.type)?.notify(event, context) ?? [],
  };
}

/** A member as the notifications read model keeps them. */
export interface MemberFacts {
  userId: string;
  role: Role;
  active: boolean;
}

/** The users a rule names, among the active members, in a stable order (member order as given). */
export function resolveRecipients(rule: RecipientRule, members: readonly MemberFacts[]): string[] {
  const active = members.filter((m) => m.active);
  const withPermission = (permission: Permission, except: string | null) =>
    active
      .filter((m) => m.userId !== except && rolePermissions[m.role].includes(permission))
      .map((m) => m.userId);
  switch (rule.kind) {
    case 'everyone':
      return active.map((m) => m.userId);
    case 'permission':
      return withPermission(rule.permission, rule.except);
    case 'users': {
      const wanted = new Set(rule.userIds);
      const named = active.filter((m) => wanted.has(m.userId)).map((m) => m.userId);
      if (named.length > 0 || rule.fallback === null) return named.filter((u) => u !== rule.except);
      return withPermission(rule.fallback, rule.except);
    }
    default: {
      const never: never = rule;
      throw new Error(`Unexpected rule ${JSON.stringify(never)}`);
    }
  }
}
