// The signed-in user's use cases with callers of both kinds: an assistant reads the user but may not change the
// profile; activeOrgId must name a workspace of the user (the rule the PATCH handler held before).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { updateCurrentUser } from '../../commands/users/user-use-cases.js';
import { NotFound } from '../../domain/shared/errors.js';
import { getCurrentUser } from '../../projections/users/queries.js';
import { assistant, member, untouchable, writeRequest } from '../support/callers.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
});
afterAll(async () => service.stop());

test('a member updates their profile and sets a workspace of theirs active; the read answers it', async () => {
  const caller = member(ws, 'editor');
  const changes = { name: 'Eddie', activeOrgId: ws.orgId };
  const written = await updateCurrentUser(service.runtime, caller, changes, writeRequest());
  expect(written.output).toMatchObject({ id: caller.userId, name: 'Eddie', activeOrgId: ws.orgId });
  expect(await getCurrentUser(service.runtime, assistant(ws, 'editor'))).toMatchObject(changes);
});

test('activeOrgId of a workspace the user is not in is a 404, and nothing is written', async () => {
  const caller = member(ws, 'editor');
  const deps = { ...service.runtime, idempotency: untouchable<typeof service.runtime.idempotency>() };
  await expect(
    updateCurrentUser(deps, caller, { activeOrgId: randomUUID() }, writeRequest()),
  ).rejects.toBeInstanceOf(NotFound);
});

test('an assistant may read the user but not change the profile, whatever its scopes', async () => {
  const caller = assistant(ws, 'owner', ['posts:write', 'posts:schedule', 'brand:write']);
  await expect(updateCurrentUser(untouchable(), caller, { name: 'x' }, writeRequest())).rejects.toMatchObject(
    {
      status: 403,
      code: 'insufficient_scope',
    },
  );
});
