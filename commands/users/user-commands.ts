// User commands: register (e-mail claimed first, so one address is one user) and update the signed-in profile.
import { createHash, randomUUID } from 'node:crypto';
import {
  normaliseEmail,
  userCategory,
  userDecider,
  userEmailCategory,
  userEmailDecider,
  type EmailVerification,
  type ProfileChanges,
  type UserCommand,
  type UserState,
} from '../../domain/users/user.js';
import { NotFound } from '../../domain/shared/errors.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteOption,
} from '../shared/command-handler.js';

export type RegisteredUser = Extract<UserState, { status: 'registered' }>;

export const userStream = (userId: string) => streamName(userCategory, userId);
export const userEmailStream = (email: string) =>
  streamName(userEmailCategory, createHash('sha256').update(normaliseEmail(email)).digest('hex'));

/** The user holding this e-mail address, created when missing (operators' bootstrap and first sign-in). */
export async function ensureUser(
  deps: CommandDeps,
  input: { email: string; name?: string | null },
  metadata: CommandMetadata,
): Promise<{ user: RegisteredUser; created: boolean }> {
  const candidate = randomUUID();
  const claim = await handleCommand(deps, {
    stream: userEmailStream(input.email),
    decider: userEmailDecider,
    command: (state) => ({
      type: 'ClaimEmail' as const,
      email: input.email,
      userId: state.status === 'claimed' ? state.userId : candidate,
      now: metadata.now,
    }),
    metadata,
    awaitReadModels: false,
  });
  if (claim.state.status !== 'claimed') throw new Error('e-mail claim did not hold');
  const userId = claim.state.userId;
  const outcome = await handleCommand(deps, {
    stream: userStream(userId),
    decider: userDecider,
    command: {
      type: 'RegisterUser',
      userId,
      email: input.email,
      name: input.name ?? null,
      now: metadata.now,
    },
    metadata,
  });
  return { user: outcome.state as RegisteredUser, created: outcome.events.length > 0 };
}

/** Records that the person proved they receive mail at the user's address (a no-op once recorded). */
export async function verifyEmail(
  deps: CommandDeps,
  input: { userId: string; email: string; method: EmailVerification },
  metadata: CommandMetadata,
): Promise<void> {
  await handleCommand(deps, {
    stream: userStream(input.userId),
    decider: userDecider,
    command: { type: 'VerifyEmail', email: input.email, method: input.method, now: metadata.now },
    metadata,
  });
}

/** Registers a user under a given id (a user of an external identity provider, on their first request). */
export async function registerUser(
  deps: CommandDeps,
  input: { userId: string; email: string; name?: string | null },
  metadata: CommandMetadata,
): Promise<RegisteredUser> {
  await handleCommand(deps, {
    stream: userEmailStream(input.email),
    decider: userEmailDecider,
    command: { type: 'ClaimEmail', email: input.email, userId: input.userId, now: metadata.now },
    metadata,
    awaitReadModels: false,
  });
  const outcome = await handleCommand(deps, {
    stream: userStream(input.userId),
    decider: userDecider,
    command: {
      type: 'RegisterUser',
      userId: input.userId,
      email: input.email,
      name: input.name ?? null,
      now: metadata.now,
    },
    metadata,
  });
  return outcome.state as RegisteredUser;
}

export async function loadUser(
  deps: Pick<CommandDeps, 'eventStore'>,
  userId: string,
): Promise<RegisteredUser> {
  const { state } = await loadAggregate(deps.eventStore, userStream(userId), userDecider);
  if (state.status !== 'registered') throw new NotFound('User not found');
  return state;
}

export async function updateProfile(
  deps: CommandDeps,
  userId: string,
  changes: ProfileChanges,
  metadata: CommandMetadata,
  options: SideWriteOption<RegisteredUser> = {},
): Promise<ProfileOutcome> {
  return profileCommand(
    deps,
    userId,
    { type: 'UpdateProfile', changes, now: metadata.now },
    metadata,
    options,
  );
}

export interface ProfileOutcome {
  user: RegisteredUser;
  /** The image shown before the command (its object may be deleted once it is no longer shown). */
  previous: RegisteredUser['profileImage'];
  appended: boolean;
}

/** Makes a checked upload the user's profile image (and avatarUrl); the same image again appends nothing. */
export async function setProfileImage(
  deps: CommandDeps,
  userId: string,
  image: { key: string; avatarUrl: string },
  metadata: CommandMetadata,
  options: SideWriteOption<RegisteredUser> = {},
): Promise<ProfileOutcome> {
  return profileCommand(
    deps,
    userId,
    { type: 'SetProfileImage', ...image, now: metadata.now },
    metadata,
    options,
  );
}

/** Removes the profile image and the avatarUrl showing it; without one, appends nothing. */
export async function removeProfileImage(
  deps: CommandDeps,
  userId: string,
  metadata: CommandMetadata,
  options: SideWriteOption<RegisteredUser> = {},
): Promise<ProfileOutcome> {
  return profileCommand(deps, userId, { type: 'RemoveProfileImage', now: metadata.now }, metadata, options);
}

/** A command on a registered user's profile: the user after it, the image shown before, and whether it appended. */
async function profileCommand(
  deps: CommandDeps,
  userId: string,
  command: Extract<UserCommand, { type: 'UpdateProfile' | 'SetProfileImage' | 'RemoveProfileImage' }>,
  metadata: CommandMetadata,
  options: SideWriteOption<RegisteredUser>,
): Promise<ProfileOutcome> {
  const outcome = await handleCommand(deps, {
    stream: userStream(userId),
    decider: userDecider,
    command,
    metadata,
    sideWrite: options.sideWrite ? (trx, o) => options.sideWrite!(trx, o.state as RegisteredUser) : undefined,
  });
  if (outcome.state.status !== 'registered' || outcome.before.status !== 'registered')
    throw new NotFound('User not found');
  return {
    user: outcome.state,
    previous: outcome.before.profileImage,
    appended: outcome.events.length > 0,
  };
}
