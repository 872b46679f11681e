// The profile image on the user aggregate: set, replaced, removed, and displaced by an avatarUrl set by PATCH.
import { describe, expect, test } from 'vitest';
import { ValidationError } from '../../domain/shared/errors.js';
import { userDecider, type UserEvent } from '../../domain/users/user.js';
import { deciderSpec } from '../support/decider-spec.js';

const userId = '00000000-0000-4000-8000-0000000000aa';
const now = '2026-11-22T10:00:00.000Z';
const later = '2026-11-22T11:00:00.000Z';
const key = `users/${userId}/profile-image/${'a'.repeat(32)}.png`;
const avatarUrl = `https://api.example.org/v1/assets/${key}`;
const registered: UserEvent[] = [
  { type: 'UserRegistered', data: { userId, email: 'ada@example.org', name: null, registeredAt: now } },
];
const withImage: UserEvent[] = [
  ...registered,
  { type: 'UserProfileImageSet', data: { userId, key, avatarUrl, setAt: now } },
];
const spec = deciderSpec(userDecider);

describe('profile image', () => {
  test('setting an image records its key and URL; avatarUrl follows', () => {
    spec
      .given(registered)
      .when({ type: 'SetProfileImage', key, avatarUrl, now })
      .then([{ type: 'UserProfileImageSet', data: { userId, key, avatarUrl, setAt: now } }]);
    spec
      .given(registered)
      .when({ type: 'SetProfileImage', key, avatarUrl, now })
      .thenState((state) => {
        expect(state).toMatchObject({ avatarUrl, profileImage: { key, avatarUrl }, updatedAt: now });
      });
  });

  test('the same image again decides nothing; another one replaces it', () => {
    spec.given(withImage).when({ type: 'SetProfileImage', key, avatarUrl, now: later }).then([]);
    const other = key.replace('.png', '.webp');
    spec
      .given(withImage)
      .when({ type: 'SetProfileImage', key: other, avatarUrl: `${avatarUrl}x`, now: later })
      .thenState((state) => expect(state).toMatchObject({ profileImage: { key: other } }));
  });

  test('removing clears the image and the avatarUrl showing it; removing none decides nothing', () => {
    spec
      .given(withImage)
      .when({ type: 'RemoveProfileImage', now: later })
      .then([{ type: 'UserProfileImageRemoved', data: { userId, key, avatarUrl, removedAt: later } }]);
    spec
      .given(withImage)
      .when({ type: 'RemoveProfileImage', now: later })
      .thenState((state) => expect(state).toMatchObject({ avatarUrl: null, profileImage: null }));
    spec.given(registered).when({ type: 'RemoveProfileImage', now }).then([]);
  });

  test('an avatarUrl set by PATCH displaces the image, so removing afterwards changes nothing', () => {
    const patched: UserEvent[] = [
      ...withImage,
      {
        type: 'UserProfileUpdated',
        data: { userId, changes: { avatarUrl: 'https://cdn.example.org/a.png' }, updatedAt: later },
      },
    ];
    spec.given(patched).when({ type: 'RemoveProfileImage', now: later }).then([]);
    // A PATCH of other fields keeps it.
    const renamed: UserEvent[] = [
      ...withImage,
      { type: 'UserProfileUpdated', data: { userId, changes: { name: 'Ada' }, updatedAt: later } },
    ];
    spec
      .given(renamed)
      .when({ type: 'RemoveProfileImage', now: later })
      .then([{ type: 'UserProfileImageRemoved', data: { userId, key, avatarUrl, removedAt: later } }]);
  });

  test('an unknown user is refused', () => {
    spec.given([]).when({ type: 'SetProfileImage', key, avatarUrl, now }).thenThrows(ValidationError);
    spec.given([]).when({ type: 'RemoveProfileImage', now }).thenThrows(ValidationError);
  });
});
