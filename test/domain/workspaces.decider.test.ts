import { describe, expect, test } from 'vitest';
import { workspaceDecider, type WorkspaceEvent } from '../../domain/workspaces/workspace.js';
import { slugReservationDecider } from '../../domain/workspaces/slug-reservation.js';
import { Conflict, NotFound, ValidationError } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const owner = '00000000-0000-4000-8000-0000000000aa';
const other = '00000000-0000-4000-8000-0000000000bb';
const now = '2026-11-22T10:00:00.000Z';
const created: WorkspaceEvent[] = [
  { type: 'WorkspaceCreated', data: { orgId, slug: 'acme', name: 'Acme', ownerId: owner, createdAt: now } },
  { type: 'MemberJoined', data: { orgId, userId: owner, role: 'owner', joinedAt: now } },
];
const spec = deciderSpec(workspaceDecider);

describe('workspace decider', () => {
  test('creating a workspace makes the creator its owner', () => {
    spec
      .given([])
      .when({ type: 'CreateWorkspace', orgId, slug: 'acme', name: '  Acme ', ownerId: owner, now })
      .then(created);
  });

  test('a bad slug or a blank name is refused', () => {
    spec
      .given([])
      .when({ type: 'CreateWorkspace', orgId, slug: 'Acme!', name: 'Acme', ownerId: owner, now })
      .thenThrows(ValidationError);
    spec
      .given([])
      .when({ type: 'CreateWorkspace', orgId, slug: '-acme', name: 'Acme', ownerId: owner, now })
      .thenThrows(ValidationError);
    spec
      .given([])
      .when({ type: 'CreateWorkspace', orgId, slug: 'acme', name: '   ', ownerId: owner, now })
      .thenThrows(ValidationError);
  });

  test('creating the same workspace again changes nothing; a different one conflicts', () => {
    spec
      .given(created)
      .when({ type: 'CreateWorkspace', orgId, slug: 'acme', name: 'Acme', ownerId: owner, now })
      .then([]);
    spec
      .given(created)
      .when({ type: 'CreateWorkspace', orgId, slug: 'other', name: 'X', ownerId: other, now })
      .thenThrows(Conflict);
  });

  test('adding a member, changing a role, and keeping the last owner', () => {
    spec
      .given(created)
      .when({ type: 'AddMember', userId: other, role: 'editor', now })
      .then([{ type: 'MemberJoined', data: { orgId, userId: other, role: 'editor', joinedAt: now } }]);
    spec.given(created).when({ type: 'AddMember', userId: owner, role: 'owner', now }).then([]);
    spec
      .given(created)
      .when({ type: 'AddMember', userId: owner, role: 'viewer', now })
      .thenThrows(Conflict, /owner/);
    spec.given([]).when({ type: 'AddMember', userId: other, role: 'editor', now }).thenThrows(NotFound);
    spec
      .given([
        ...created,
        { type: 'MemberJoined', data: { orgId, userId: other, role: 'editor', joinedAt: now } },
      ])
      .when({ type: 'AddMember', userId: other, role: 'admin', now })
      .thenState((s) => {
        expect(s.status === 'active' && s.members[other]?.role).toBe('admin');
      });
  });
});

describe('slug reservation decider', () => {
  const slugSpec = deciderSpec(slugReservationDecider);
  const reserved = [{ type: 'SlugReserved' as const, data: { slug: 'acme', orgId, reservedAt: now } }];

  test('a free slug is reserved; the same workspace reserving again changes nothing', () => {
    slugSpec
      .given([])
      .when({ type: 'ReserveSlug', slug: 'acme', orgId, now, holderExists: false })
      .then(reserved);
    slugSpec
      .given(reserved)
      .when({ type: 'ReserveSlug', slug: 'acme', orgId, now, holderExists: false })
      .then([]);
  });

  test('a slug held by an existing workspace is a 409', () => {
    slugSpec
      .given(reserved)
      .when({
        type: 'ReserveSlug',
        slug: 'acme',
        orgId: other,
        now: '2026-11-22T11:00:00.000Z',
        holderExists: true,
      })
      .thenThrows(Conflict, /taken/);
  });

  test('a reservation abandoned by a crash is taken over only after a minute', () => {
    slugSpec
      .given(reserved)
      .when({
        type: 'ReserveSlug',
        slug: 'acme',
        orgId: other,
        now: '2026-11-22T10:00:30.000Z',
        holderExists: false,
      })
      .thenThrows(Conflict);
    const later = '2026-11-22T10:01:00.000Z';
    slugSpec
      .given(reserved)
      .when({ type: 'ReserveSlug', slug: 'acme', orgId: other, now: later, holderExists: false })
      .then([{ type: 'SlugReserved', data: { slug: 'acme', orgId: other, reservedAt: later } }]);
  });
});
