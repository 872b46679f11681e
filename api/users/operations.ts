// The users slice's operations, all of the signed-in user and none of a workspace (a user-only token works; an
// external identity provider's user is registered on their first call): GET and PATCH /v1/users/me, and the
// profile image: POST /v1/users/me/profile-image/upload-url (a slot), POST /v1/users/me/profile-image (set from
// an upload), GET (with a download URL) and DELETE.
import {
  createProfileImageUploadUrl,
  getProfileImage,
  removeProfileImage,
  setProfileImage,
} from '../../commands/users/profile-image-use-cases.js';
import { maxImageBytes } from '../../commands/shared/image-uploads.js';
import { updateCurrentUser } from '../../commands/users/user-use-cases.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import { getCurrentUser } from '../../projections/users/queries.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import type { RouteServices } from '../shared/services.js';
import {
  acceptedImageTypes,
  imageUploadBody,
  profileImageSchema,
  profileImageSetSchema,
  profileImageUploadSlotSchema,
  setProfileImageBody,
  updateUserBody,
  userSchema,
} from './schemas.js';

export type UserDeps = RouteServices & { storage: ObjectStorage };

const operation = operationsWith<UserDeps>();
const me = '/v1/users/me';
const userAccess = { workspace: false, knownUser: true } as const;

export const userOperations = operationGroup(
  (ctx): UserDeps => ({ ...ctx.services, storage: ctx.storage }),
  [
    operation({
      name: 'getCurrentUser',
      kind: 'read',
      method: 'get',
      path: me,
      tags: ['users'],
      summary: 'The signed-in user',
      output: userSchema,
      outputDescription: 'The user',
      errors: [401, 404],
      access: userAccess,
      run: (deps, { caller }) => getCurrentUser(deps, caller),
    }),
    operation({
      name: 'updateCurrentUser',
      kind: 'write',
      method: 'patch',
      path: me,
      tags: ['users'],
      summary: "Update the signed-in user's profile; omitted fields stay, null clears",
      body: updateUserBody,
      output: userSchema,
      outputDescription: 'The user',
      errors: [400, 401, 404, 413, 422, 503],
      access: userAccess,
      run: (deps, { caller, request }, changes) => updateCurrentUser(deps, caller, changes, request),
    }),
    operation({
      name: 'createProfileImageUploadUrl',
      kind: 'write',
      method: 'post',
      path: `${me}/profile-image/upload-url`,
      tags: ['users'],
      summary: `A slot to upload a profile image (${acceptedImageTypes}, at most ${maxImageBytes} bytes)`,
      body: imageUploadBody,
      output: profileImageUploadSlotSchema,
      outputDescription: 'The upload slot',
      errors: [400, 401, 403, 413, 422],
      access: userAccess,
      run: (deps, { caller, request }, input) => createProfileImageUploadUrl(deps, caller, input, request),
    }),
    operation({
      name: 'setProfileImage',
      kind: 'write',
      method: 'post',
      path: `${me}/profile-image`,
      tags: ['users'],
      summary: 'Make an uploaded image the profile image; avatarUrl becomes its stable URL',
      body: setProfileImageBody,
      output: profileImageSetSchema,
      outputDescription: 'The profile image and avatarUrl',
      errors: [400, 401, 403, 404, 413, 422, 503],
      access: userAccess,
      run: (deps, { caller, request }, input) => setProfileImage(deps, caller, input, request),
    }),
    operation({
      name: 'getProfileImage',
      kind: 'read',
      method: 'get',
      path: `${me}/profile-image`,
      tags: ['users'],
      summary: 'The profile image with a fresh download URL',
      output: profileImageSchema,
      outputDescription: 'The profile image',
      errors: [401, 403, 404],
      access: userAccess,
      run: (deps, { caller }) => getProfileImage(deps, caller),
    }),
    operation({
      name: 'deleteProfileImage',
      kind: 'write',
      method: 'delete',
      path: `${me}/profile-image`,
      tags: ['users'],
      summary: 'Remove the profile image (avatarUrl cleared); removing none is not an error',
      output: null,
      outputDescription: 'Removed (no body)',
      errors: [401, 403, 422, 503],
      access: userAccess,
      run: (deps, { caller, request }) => removeProfileImage(deps, caller, request),
    }),
  ],
);
