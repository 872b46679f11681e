// What every use case checks of its caller: the workspace, the role's permission, and for an assistant the
// scope its user granted (null: assistants may not).
import { describe, expect, test } from 'vitest';
import { actorOf, authorize, type Caller } from '../../domain/shared/caller.js';
import { Forbidden } from '../../domain/shared/errors.js';

const orgId = '00000000-0000-4000-8000-0000000000aa';
const editor: Caller = {
  kind: 'user',
  userId: '00000000-0000-4000-8000-000000000001',
  orgId,
  role: 'editor',
  permissions: ['workspace:read', 'posts:read', 'posts:draft', 'brand:write'],
};
const assistant: Caller = {
  ...editor,
  kind: 'assistant',
  clientId: 'claude',
  clientName: 'Claude',
  connectionId: '00000000-0000-4000-8000-00000000c0c0',
  scopes: ['mcp:read'],
};

function refusal(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(Forbidden);
    return (error as Forbidden).message;
  }
}

describe('authorize', () => {
  test('a member in their workspace with the permission passes', () => {
    expect(refusal(() => authorize(editor, { orgId, permission: 'posts:draft', scope: 'posts:write' }))).toBe(
      undefined,
    );
  });

  test('another workspace, or none, is a 403', () => {
    expect(refusal(() => authorize(editor, { orgId: 'other', scope: 'mcp:read' }))).toMatch(/workspace/);
    expect(refusal(() => authorize({ ...editor, orgId: null }, { orgId, scope: 'mcp:read' }))).toMatch(
      /workspace/,
    );
  });

  test('a permission the role lacks is a 403; any one of several will do', () => {
    expect(refusal(() => authorize(editor, { orgId, permission: 'posts:approve', scope: null }))).toBe(
      'Your role does not allow this action',
    );
    expect(
      refusal(() => authorize(editor, { orgId, permission: ['posts:approve', 'posts:draft'], scope: null })),
    ).toBe(undefined);
  });

  test('scopes narrow assistants only; null shuts assistants out', () => {
    expect(refusal(() => authorize(assistant, { orgId, permission: 'posts:read', scope: 'mcp:read' }))).toBe(
      undefined,
    );
    expect(
      refusal(() => authorize(assistant, { orgId, permission: 'posts:draft', scope: 'posts:write' })),
    ).toMatch(/posts:write/);
    expect(refusal(() => authorize(assistant, { scope: null }))).toMatch(/Assistants may not/);
    expect(refusal(() => authorize(editor, { scope: null }))).toBe(undefined);
  });

  test("a scope never adds to the role: an assistant with posts:schedule still needs the user's permission", () => {
    const granted: Caller = { ...assistant, scopes: ['mcp:read', 'posts:schedule'] };
    expect(
      refusal(() => authorize(granted, { orgId, permission: 'posts:approve', scope: 'posts:schedule' })),
    ).toBe('Your role does not allow this action');
  });
});

test('events name a user by id and an assistant by its client', () => {
  expect(actorOf(editor)).toBe(editor.userId);
  expect(actorOf(assistant)).toBe('assistant:claude');
});
