// Who calls a use case: a signed-in user, or an assistant client acting for one (the MCP tool server), and
// the checks every use case makes of its caller, whichever entry point it came through.
import type { Permission, Role } from '../workspaces/roles.js';
import { Forbidden } from './errors.js';

/** The scopes a user grants an assistant connection (the spec's table); `mcp:read` is always granted. */
export const assistantScopes = [
  'mcp:read',
  'posts:write',
  'posts:schedule',
  'posts:publish',
  'posts:delete',
  'brand:write',
] as const;
export type AssistantScope = (typeof assistantScopes)[number];

/**
 * Scopes whose tools act beyond recall or overwrite what the workspace has: approving and scheduling (posts
 * then go out with no one else looking), publishing, deleting, replacing the brand kit. Never granted by
 * default: the person ticks each one on the consent page.
 */
export const destructiveScopes: readonly AssistantScope[] = [
  'posts:schedule',
  'posts:publish',
  'posts:delete',
  'brand:write',
];

interface CallerBase {
  /** The user acting, or the user an assistant acts for. */
  userId: string;
  /** The one workspace the caller acts in; null for a user who has not chosen one (a user-only token). */
  orgId: string | null;
  /** The user's role in that workspace now, and the permissions it grants. */
  role: Role | null;
  permissions: readonly Permission[];
}

export type Caller =
  | (CallerBase & { kind: 'user' })
  | (CallerBase & {
      kind: 'assistant';
      /** The assistant's OAuth client, and its name as the user saw it on the consent page. */
      clientId: string;
      clientName: string;
      /** The connection (one user's grant to the client for one workspace) the call came through. */
      connectionId: string;
      /** What its user granted it; it may do what the user's role allows, narrowed to these. */
      scopes: readonly AssistantScope[];
    });

/**
 * An assistant as commands and events name it: the OAuth client acting for the command's user. Deciders use it
 * for rules about assistants (an assistant never approves what an assistant wrote), histories to name it.
 */
export interface AssistantActor {
  clientId: string;
  /** As its user saw it on the consent page. */
  clientName: string;
}

/** The assistant acting, for a command; undefined when a person acts. */
export function assistantActorOf(caller: Caller): AssistantActor | undefined {
  return caller.kind === 'assistant'
    ? { clientId: caller.clientId, clientName: caller.clientName }
    : undefined;
}

/** The actor events record: the user's id, or `assistant:<clientId>` (the user it acts for is in the event). */
export function actorOf(caller: Caller): string {
  return caller.kind === 'assistant' ? `assistant:${caller.clientId}` : caller.userId;
}

/** Whose Idempotency-Keys a key is among: a user's own, or one assistant connection's of that user. */
export function idempotencyScopeOf(caller: Caller): string {
  return caller.kind === 'assistant' ? `assistant:${caller.clientId}:${caller.userId}` : caller.userId;
}

export function hasPermission(caller: Caller, permission: Permission): boolean {
  return caller.permissions.includes(permission);
}

/** Whether an assistant was granted the scope; users have every scope (their role alone limits them). */
export function hasScope(caller: Caller, scope: AssistantScope): boolean {
  return caller.kind !== 'assistant' || caller.scopes.includes(scope);
}

/** 403 unless the caller's role grants one of the permissions. */
export function requirePermission(caller: Caller, ...anyOf: Permission[]): void {
  if (!anyOf.some((p) => caller.permissions.includes(p)))
    throw new Forbidden('Your role does not allow this action');
}

/** 403 for an assistant not granted the scope (null: no scope lets an assistant do this); users pass. */
export function requireScope(caller: Caller, scope: AssistantScope | null): void {
  if (caller.kind !== 'assistant') return;
  if (scope === null)
    throw new Forbidden(
      'Assistants may not do this; it is open to signed-in members only',
      'insufficient_scope',
    );
  if (!caller.scopes.includes(scope))
    throw new Forbidden(`This connection was not granted the ${scope} scope`, 'insufficient_scope');
}

/** The caller's workspace, which must be the one named; 403 otherwise (also for a workspace that does not exist). */
export function requireWorkspace(caller: Caller, orgId: string): string {
  if (caller.orgId === null) throw new Forbidden('This caller does not act in a workspace');
  if (caller.orgId !== orgId) throw new Forbidden('This token does not give access to that workspace');
  return orgId;
}

/** What a use case asks of its caller before anything else. */
export interface Access {
  /** The workspace it acts in, if any: the caller's must be this one. */
  orgId?: string;
  /** The caller's role must grant one of these. */
  permission?: Permission | readonly Permission[];
  /** The scope an assistant needs for it; null when assistants may not call it. */
  scope: AssistantScope | null;
}

/** Workspace, then permission, then scope: each a 403 with the reason. */
export function authorize(caller: Caller, access: Access): void {
  if (access.orgId !== undefined) requireWorkspace(caller, access.orgId);
  if (access.permission !== undefined)
    requirePermission(
      caller,
      ...(typeof access.permission === 'string' ? [access.permission] : access.permission),
    );
  requireScope(caller, access.scope);
}
