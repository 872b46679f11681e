// The user aggregate (stream `user-<userId>`): registration and the signed-in user's profile.
// E-mail uniqueness is the email-claim aggregate below (`userEmail-<sha256 of the lower-cased e-mail>`).
import { Conflict, ValidationError } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import {
  userEmailEventCodec,
  userEventCodec,
  type EmailVerification,
  type ProfileChanges,
  type UserEmailEvent,
  type UserEvent,
} from './event-codec.js';

export const userCategory = 'user';
export const userEmailCategory = 'userEmail';

export type { EmailVerification, ProfileChanges, UserEmailEvent, UserEvent } from './event-codec.js';

/** The uploaded image the user shows as their avatar (its object key, and the URL avatarUrl holds for it). */
export interface ProfileImage {
  key: string;
  avatarUrl: string;
}

export type UserCommand =
  | { type: 'RegisterUser'; userId: string; email: string; name: string | null; now: string }
  | { type: 'UpdateProfile'; changes: ProfileChanges; now: string }
  | { type: 'VerifyEmail'; email: string; method: EmailVerification; now: string }
  /** The image is checked (exists, type, size) by the use case before; the key and its URL come with it. */
  | { type: 'SetProfileImage'; key: string; avatarUrl: string; now: string }
  | { type: 'RemoveProfileImage'; now: string };

export type UserState =
  | { status: 'absent' }
  | {
      status: 'registered';
      userId: string;
      email: string;
      name: string | null;
      avatarUrl: string | null;
      activeOrgId: string | null;
      locale: string | null;
      timezone: string | null;
      /** Whether the person has proved they receive mail at `email` (set once; the address does not change). */
      emailVerified: boolean;
      /** Null when avatarUrl is not an uploaded image (none, or a URL set with PATCH). */
      profileImage: ProfileImage | null;
      createdAt: string;
      updatedAt: string;
    };

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

const profileKeys = ['name', 'avatarUrl', 'activeOrgId', 'locale', 'timezone'] as const;

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: { status: 'absent' },
  codec: userEventCodec,
  decide(command, state) {
    switch (command.type) {
      case 'RegisterUser':
        if (state.status === 'registered') {
          if (state.email === normaliseEmail(command.email)) return [];
          throw new Conflict('User already exists');
        }
        return [
          {
            type: 'UserRegistered',
            data: {
              userId: command.userId,
              email: normaliseEmail(command.email),
              name: command.name,
              registeredAt: command.now,
            },
          },
        ];
      case 'UpdateProfile': {
        if (state.status === 'absent') throw new ValidationError('Unknown user');
        // Only what really changes is recorded, so a repeated PATCH appends nothing.
        const changes: ProfileChanges = {};
        for (const key of profileKeys) {
          const value = command.changes[key];
          if (value !== undefined && value !== state[key]) changes[key] = value;
        }
        if (Object.keys(changes).length === 0) return [];
        return [
          { type: 'UserProfileUpdated', data: { userId: state.userId, changes, updatedAt: command.now } },
        ];
      }
      case 'VerifyEmail':
        if (state.status === 'absent') throw new ValidationError('Unknown user');
        // Proof for another address says nothing about this one; a second proof adds nothing.
        if (normaliseEmail(command.email) !== state.email || state.emailVerified) return [];
        return [
          {
            type: 'UserEmailVerified',
            data: {
              userId: state.userId,
              email: state.email,
              method: command.method,
              verifiedAt: command.now,
            },
          },
        ];
      case 'SetProfileImage': {
        if (state.status === 'absent') throw new ValidationError('Unknown user');
        const current = state.profileImage;
        if (current?.key === command.key && state.avatarUrl === command.avatarUrl) return [];
        return [
          {
            type: 'UserProfileImageSet',
            data: {
              userId: state.userId,
              key: command.key,
              avatarUrl: command.avatarUrl,
              setAt: command.now,
            },
          },
        ];
      }
      case 'RemoveProfileImage': {
        if (state.status === 'absent') throw new ValidationError('Unknown user');
        // Removing what is not there is done already: a repeated DELETE appends nothing.
        if (!state.profileImage) return [];
        return [
          {
            type: 'UserProfileImageRemoved',
            data: { userId: state.userId, ...state.profileImage, removedAt: command.now },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return {
          status: 'registered',
          userId: event.data.userId,
          email: event.data.email,
          name: event.data.name,
          avatarUrl: null,
          activeOrgId: null,
          locale: null,
          timezone: null,
          emailVerified: false,
          profileImage: null,
          createdAt: event.data.registeredAt,
          updatedAt: event.data.registeredAt,
        };
      case 'UserProfileUpdated': {
        if (state.status === 'absent') return state;
        const next = { ...state, ...event.data.changes, updatedAt: event.data.updatedAt };
        // An avatarUrl set by PATCH replaces the uploaded image: it is no longer the profile image.
        const replaced = next.profileImage !== null && next.avatarUrl !== next.profileImage.avatarUrl;
        return replaced ? { ...next, profileImage: null } : next;
      }
      case 'UserEmailVerified':
        if (state.status === 'absent') return state;
        return { ...state, emailVerified: true };
      case 'UserProfileImageSet': {
        if (state.status === 'absent') return state;
        const { key, avatarUrl, setAt } = event.data;
        return { ...state, profileImage: { key, avatarUrl }, avatarUrl, updatedAt: setAt };
      }
      case 'UserProfileImageRemoved':
        if (state.status === 'absent') return state;
        return {
          ...state,
          profileImage: null,
          avatarUrl: state.avatarUrl === event.data.avatarUrl ? null : state.avatarUrl,
          updatedAt: event.data.removedAt,
        };
      default:
        return assertNever(event);
    }
  },
};

export type UserEmailCommand = { type: 'ClaimEmail'; email: string; userId: string; now: string };
export type UserEmailState = { status: 'free' } | { status: 'claimed'; userId: string };

export const userEmailDecider: Decider<UserEmailState, UserEmailCommand, UserEmailEvent> = {
  initialState: { status: 'free' },
  codec: userEmailEventCodec,
  decide(command, state) {
    if (state.status === 'claimed') {
      if (state.userId === command.userId) return [];
      throw new Conflict('This e-mail address belongs to another user', 'email_taken');
    }
    return [
      {
        type: 'UserEmailClaimed',
        data: { email: normaliseEmail(command.email), userId: command.userId, claimedAt: command.now },
      },
    ];
  },
  evolve(_state, event) {
    return { status: 'claimed', userId: event.data.userId };
  },
};
