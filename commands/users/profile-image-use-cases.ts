// Profile image use cases: an upload slot, making a checked upload the profile image (and avatarUrl), reading
// it with a fresh download URL, and removing it. The signed-in person only (assistants may read it, not change it).
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { NotFound } from '../../domain/shared/errors.js';
import type { ProfileImage } from '../../domain/users/user.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import {
  acceptedImageType,
  assetUrlOf,
  checkUploadedImage,
  createImageUploadSlot,
  imageDownloadExpirySeconds,
  profileImagePrefix,
} from '../shared/image-uploads.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import {
  loadUser,
  removeProfileImage as appendRemove,
  setProfileImage as appendSet,
} from './user-commands.js';

export interface ProfileImageDeps extends WriteDeps {
  storage: ObjectStorage;
  /** Origin of the stable asset URLs avatarUrl holds. */
  publicBaseUrl: string;
}

/** The spec's upload slot for a profile image: `url` is where the image will be shown once set. */
export interface ProfileImageUploadSlot {
  uploadUrl: string;
  key: string;
  url: string;
  expiresInSeconds: number;
  method: 'PUT';
  requiredHeaders: Record<string, string>;
}

export async function createProfileImageUploadUrl(
  deps: ProfileImageDeps,
  caller: Caller,
  input: { contentType: string },
  request: WriteRequest,
): Promise<Written<ProfileImageUploadSlot>> {
  authorize(caller, { scope: null });
  acceptedImageType(input.contentType);
  // Nothing is appended; with an Idempotency-Key the key is derived from it and the first slot is replayed.
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    const slot = await createImageUploadSlot(
      deps.storage,
      profileImagePrefix(caller.userId),
      input.contentType,
      idempotencySeed,
    );
    return {
      uploadUrl: slot.uploadUrl,
      key: slot.key,
      url: assetUrlOf(deps.publicBaseUrl, slot.key),
      expiresInSeconds: slot.expiresInSeconds,
      method: slot.method,
      requiredHeaders: slot.requiredHeaders,
    };
  });
}

export interface ProfileImageSet {
  avatarUrl: string | null;
  key: string;
}

/**
 * Checks the upload under `key` (the caller's own, present, an accepted type within the size limit) and makes it
 * the profile image; avatarUrl becomes its stable asset URL. The image it replaces is deleted from storage.
 */
export async function setProfileImage(
  deps: ProfileImageDeps,
  caller: Caller,
  input: { key: string },
  request: WriteRequest,
): Promise<Written<ProfileImageSet>> {
  authorize(caller, { scope: null });
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    // Checked inside the write, so a retry with the same Idempotency-Key replays rather than re-checks.
    await checkUploadedImage(deps.storage, profileImagePrefix(caller.userId), input.key);
    const image = { key: input.key, avatarUrl: assetUrlOf(deps.publicBaseUrl, input.key) };
    const answer = (avatarUrl: string | null): ProfileImageSet => ({ avatarUrl, key: input.key });
    const outcome = await appendSet(
      deps.commands,
      caller.userId,
      image,
      metadata,
      record ? { sideWrite: (trx, user) => record(trx, answer(user.avatarUrl)) } : {},
    );
    await forgetImage(deps.storage, outcome.previous, outcome.user.profileImage);
    return answer(outcome.user.avatarUrl);
  });
}

export interface ProfileImageDownload {
  key: string;
  url: string;
  expiresInSeconds: number;
}

/** The profile image with a download URL valid for an hour; 404 `no_profile_image` when there is none. */
export async function getProfileImage(
  deps: { commands: Pick<CommandDeps, 'eventStore'>; storage: ObjectStorage },
  caller: Caller,
): Promise<ProfileImageDownload> {
  authorize(caller, { scope: 'mcp:read' });
  const user = await loadUser(deps.commands, caller.userId);
  if (!user.profileImage) throw new NotFound('No profile image is set', 'no_profile_image');
  const { key } = user.profileImage;
  const expiresInSeconds = imageDownloadExpirySeconds;
  return { key, url: await deps.storage.createDownloadUrl(key, { expiresInSeconds }), expiresInSeconds };
}

/** Removes the profile image (avatarUrl cleared, the object deleted); without one, nothing changes. */
export async function removeProfileImage(
  deps: ProfileImageDeps,
  caller: Caller,
  request: WriteRequest,
): Promise<Written<null>> {
  authorize(caller, { scope: null });
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const outcome = await appendRemove(
      deps.commands,
      caller.userId,
      metadata,
      record ? { sideWrite: (trx) => record(trx, null) } : {},
    );
    await forgetImage(deps.storage, outcome.previous, outcome.user.profileImage);
    return null;
  });
}

/**
 * Deletes the object of an image no longer shown. After the append, and best effort: the event is the truth,
 * and an object left behind (a failed delete) is only storage under the user's own prefix at an unlisted key.
 */
export async function forgetImage(
  storage: ObjectStorage,
  previous: ProfileImage | null,
  current: ProfileImage | null,
): Promise<void> {
  if (!previous || previous.key === current?.key) return;
  await storage.delete(previous.key).catch(() => undefined);
}
