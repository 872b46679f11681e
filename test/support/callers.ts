// Callers for use-case tests: a workspace member by role, the same member's assistant with some scopes, a write
// request, and dependencies that fail the test when touched (a refusal must come before any I/O).
import { randomUUID } from 'node:crypto';
import type { WriteRequest } from '../../commands/shared/write-pipeline.js';
import type { AssistantScope, Caller } from '../../domain/shared/caller.js';
import { permissionsOf, type Role } from '../../domain/workspaces/roles.js';
import type { TestWorkspace } from './workspace.js';

export function member(ws: Pick<TestWorkspace, 'orgId' | 'userIds'>, role: Role): Caller {
  return { kind: 'user', userId: ws.userIds[role], orgId: ws.orgId, role, permissions: permissionsOf(role) };
}

/** The member's assistant connection (client `claude`), granted `scopes` besides mcp:read. */
export function assistant(
  ws: Pick<TestWorkspace, 'orgId' | 'userIds'>,
  role: Role,
  scopes: AssistantScope[] = [],
): Caller {
  return {
    ...member(ws, role),
    kind: 'assistant',
    clientId: 'claude',
    clientName: 'Claude',
    connectionId: '00000000-0000-4000-8000-00000000c0c0',
    scopes: ['mcp:read', ...scopes],
  };
}

export function writeRequest(key?: string, requestHash = 'test-request'): WriteRequest {
  return {
    correlationId: randomUUID(),
    now: new Date().toISOString(),
    ...(key !== undefined ? { idempotency: { key, requestHash, status: 200 } } : {}),
  };
}

/** Dependencies whose every use throws: a use case that refuses before any I/O never notices. */
export function untouchable<T>(): T {
  const fail = (): never => {
    throw new Error('the use case touched its dependencies before refusing');
  };
  const proxy: object = new Proxy(fail, { get: fail, apply: fail });
  return proxy as T;
}
