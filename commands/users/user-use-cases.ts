// User use cases: the signed-in member updates their own profile (assistants may not), through the write
// pipeline; the answer is the user as they now are.
import type { Kysely } from 'kysely';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { NotFound } from '../../domain/shared/errors.js';
import type { ProfileChanges } from '../../domain/users/user.js';
import { userView, type UserView } from '../../domain/users/views.js';
import type { ReadModels } from '../../projections/read-models.js';
import { getUserView } from '../../projections/users/queries.js';
import { findMembershipRole } from '../../projections/workspaces/queries.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import { forgetImage } from './profile-image-use-cases.js';
import { updateProfile } from './user-commands.js';

/**
 * Omitted fields stay, null clears; `activeOrgId` must be a workspace the user is a member of (404 otherwise).
 * Given the storage, an uploaded profile image that a new avatarUrl replaces is deleted.
 */
export async function updateCurrentUser(
  deps: WriteDeps & { readModels: Kysely<ReadModels>; storage?: ObjectStorage },
  caller: Caller,
  changes: ProfileChanges,
  request: WriteRequest,
): Promise<Written<UserView>> {
  authorize(caller, { scope: null });
  const userId = caller.userId;
  if (changes.activeOrgId && !(await findMembershipRole(deps.readModels, userId, changes.activeOrgId)))
    throw new NotFound('Workspace not found');
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const { user, appended, previous } = await updateProfile(
      deps.commands,
      userId,
      changes,
      metadata,
      record ? { sideWrite: (trx, u) => record(trx, userView(u)) } : {},
    );
    // An avatarUrl set here replaces an uploaded profile image, which is then deleted.
    if (deps.storage) await forgetImage(deps.storage, previous, user.profileImage);
    // Nothing changed: the read model (which also carries emailVerified and featureFlags) is current.
    if (!appended) return (await getUserView(deps.readModels, userId)) ?? userView(user);
    return userView(user);
  });
}
