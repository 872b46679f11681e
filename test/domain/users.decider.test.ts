import { describe, test } from 'vitest';
import { userDecider, userEmailDecider, type UserEvent } from '../../domain/users/user.js';
import { Conflict, ValidationError } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const userId = '00000000-0000-4000-8000-0000000000aa';
const now = '2026-11-22T10:00:00.000Z';
const registered: UserEvent[] = [
  { type: 'UserRegistered', data: { userId, email: 'ada@example.org', name: null, registeredAt: now } },
];
const spec = deciderSpec(userDecider);

describe('user decider', () => {
  test('registration normalises the e-mail; registering again changes nothing', () => {
    spec
      .given([])
      .when({ type: 'RegisterUser', userId, email: ' Ada@Example.org ', name: null, now })
      .then(registered);
    spec
      .given(registered)
      .when({ type: 'RegisterUser', userId, email: 'ada@example.org', name: null, now })
      .then([]);
    spec
      .given(registered)
      .when({ type: 'RegisterUser', userId, email: 'bob@example.org', name: null, now })
      .thenThrows(Conflict);
  });

  test('a profile update records only what changes', () => {
    spec
      .given(registered)
      .when({ type: 'UpdateProfile', changes: { name: 'Ada', avatarUrl: null }, now })
      .then([{ type: 'UserProfileUpdated', data: { userId, changes: { name: 'Ada' }, updatedAt: now } }]);
    spec
      .given(registered)
      .when({ type: 'UpdateProfile', changes: { name: null }, now })
      .then([]);
    spec
      .given([])
      .when({ type: 'UpdateProfile', changes: { name: 'x' }, now })
      .thenThrows(ValidationError);
  });
});

describe('e-mail verification', () => {
  const verified: UserEvent = {
    type: 'UserEmailVerified',
    data: { userId, email: 'ada@example.org', method: 'email_link', verifiedAt: now },
  };
  test("proof for the user's address is recorded once; proof for another address, or a second one, adds nothing", () => {
    spec
      .given(registered)
      .when({ type: 'VerifyEmail', email: 'ADA@example.org', method: 'email_link', now })
      .then([verified]);
    spec
      .given([...registered, verified])
      .when({ type: 'VerifyEmail', email: 'ada@example.org', method: 'identity_provider', now })
      .then([]);
    spec
      .given(registered)
      .when({ type: 'VerifyEmail', email: 'eve@example.org', method: 'email_link', now })
      .then([]);
    spec
      .given([])
      .when({ type: 'VerifyEmail', email: 'ada@example.org', method: 'email_link', now })
      .thenThrows(ValidationError);
  });
});

describe('e-mail claim decider', () => {
  const claimSpec = deciderSpec(userEmailDecider);
  test('one address, one user', () => {
    claimSpec
      .given([])
      .when({ type: 'ClaimEmail', email: 'Ada@example.org', userId, now })
      .then([{ type: 'UserEmailClaimed', data: { email: 'ada@example.org', userId, claimedAt: now } }]);
    const claimed = [
      { type: 'UserEmailClaimed' as const, data: { email: 'ada@example.org', userId, claimedAt: now } },
    ];
    claimSpec.given(claimed).when({ type: 'ClaimEmail', email: 'ada@example.org', userId, now }).then([]);
    claimSpec
      .given(claimed)
      .when({ type: 'ClaimEmail', email: 'ada@example.org', userId: 'someone-else', now })
      .thenThrows(Conflict);
  });
});
