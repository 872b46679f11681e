import { describe, expect, test } from 'vitest';
import { workspaceDecider, type WorkspaceEvent } from '../../domain/workspaces/workspace.js';
import { slugReservationDecider } from '../../domain/workspaces/slug-reservation.js';
import { Conflict, Forbidden, Gone, NotFound, ValidationError } from '../../domain/shared/errors.js';
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
const fold = (events: WorkspaceEvent[]) =>
  events.reduce(workspaceDecider.evolve, workspaceDecider.initialState);

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

  test("an invitation adds its member once: not again after removal, and never changing a member's role", () => {
    const invitationId = '50000000-0000-4000-8000-000000000001';
    const joined: WorkspaceEvent = {
      type: 'MemberJoined',
      data: { orgId, userId: other, role: 'editor', joinedAt: now, invitationId },
    };
    spec
      .given(created)
      .when({ type: 'AddMember', userId: other, role: 'editor', invitationId, now })
      .then([joined]);
    spec
      .given([...created, joined])
      .when({ type: 'AddMember', userId: other, role: 'editor', invitationId, now })
      .then([]);
    const removed: WorkspaceEvent = {
      type: 'MemberRemoved',
      data: { orgId, userId: other, by: owner, removedAt: now },
    };
    spec
      .given([...created, joined, removed])
      .when({ type: 'AddMember', userId: other, role: 'editor', invitationId, now })
      .then([]);
    spec
      .given(created)
      .when({ type: 'AddMember', userId: owner, role: 'viewer', invitationId, now })
      .then([]);
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

describe('workspace decider: members', () => {
  const admin = '00000000-0000-4000-8000-0000000000cc';
  const editor = '00000000-0000-4000-8000-0000000000dd';
  const joined = (userId: string, role: 'owner' | 'admin' | 'editor'): WorkspaceEvent => ({
    type: 'MemberJoined',
    data: { orgId, userId, role, joinedAt: now },
  });
  const team = [...created, joined(admin, 'admin'), joined(editor, 'editor')];
  const asOwner = { userId: owner, role: 'owner' as const };
  const asAdmin = { userId: admin, role: 'admin' as const };
  const asEditor = { userId: editor, role: 'editor' as const };

  test('an admin changes a role, suspends and reactivates a member', () => {
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asAdmin, userId: editor, role: 'viewer', now })
      .then([{ type: 'MemberRoleChanged', data: { orgId, userId: editor, role: 'viewer', changedAt: now } }]);
    const suspended: WorkspaceEvent = {
      type: 'MemberSuspended',
      data: { orgId, userId: editor, by: admin, suspendedAt: now },
    };
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asAdmin, userId: editor, status: 'suspended', now })
      .then([suspended]);
    spec
      .given([...team, suspended])
      .when({ type: 'ChangeMember', actor: asAdmin, userId: editor, status: 'active', now })
      .then([{ type: 'MemberReactivated', data: { orgId, userId: editor, by: admin, reactivatedAt: now } }]);
    // Role and status at once: both events, role first.
    spec
      .given(team)
      .when({
        type: 'ChangeMember',
        actor: asAdmin,
        userId: editor,
        role: 'viewer',
        status: 'suspended',
        now,
      })
      .then([
        { type: 'MemberRoleChanged', data: { orgId, userId: editor, role: 'viewer', changedAt: now } },
        suspended,
      ]);
    // The suspended member keeps their role and shows as suspended.
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asAdmin, userId: editor, status: 'suspended', now })
      .thenState((s) => {
        expect(s.status === 'active' && s.members[editor]).toEqual({
          role: 'editor',
          status: 'suspended',
          joinedAt: now,
        });
      });
  });

  test('a change that changes nothing decides nothing', () => {
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asAdmin, userId: editor, role: 'editor', status: 'active', now })
      .then([]);
  });

  test('only an owner grants, changes or removes the owner role', () => {
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asAdmin, userId: editor, role: 'owner', now })
      .thenThrows(Forbidden, /owner/);
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asAdmin, userId: owner, role: 'admin', now })
      .thenThrows(Forbidden, /owner/);
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asAdmin, userId: owner, status: 'suspended', now })
      .thenThrows(Forbidden, /owner/);
    spec
      .given(team)
      .when({ type: 'RemoveMember', actor: asAdmin, userId: owner, now })
      .thenThrows(Forbidden, /owner/);
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asOwner, userId: admin, role: 'owner', now })
      .then([{ type: 'MemberRoleChanged', data: { orgId, userId: admin, role: 'owner', changedAt: now } }]);
  });

  test('the last active owner can be neither demoted, suspended nor removed; with two owners it works', () => {
    for (const command of [
      { type: 'ChangeMember', actor: asOwner, userId: owner, role: 'admin', now },
      { type: 'ChangeMember', actor: asOwner, userId: owner, status: 'suspended', now },
      { type: 'RemoveMember', actor: asOwner, userId: owner, now },
    ] as const) {
      spec
        .given(team)
        .when(command)
        .thenThrows(Conflict, /at least one active owner/);
    }
    const twoOwners: WorkspaceEvent[] = [
      ...team,
      { type: 'MemberRoleChanged', data: { orgId, userId: admin, role: 'owner', changedAt: now } },
    ];
    spec
      .given(twoOwners)
      .when({ type: 'ChangeMember', actor: asOwner, userId: admin, role: 'admin', now })
      .then([{ type: 'MemberRoleChanged', data: { orgId, userId: admin, role: 'admin', changedAt: now } }]);
    spec
      .given(twoOwners)
      .when({ type: 'RemoveMember', actor: asOwner, userId: owner, now })
      .then([{ type: 'MemberRemoved', data: { orgId, userId: owner, by: owner, removedAt: now } }]);
    // A suspended second owner does not count: the active one stays.
    const otherSuspended: WorkspaceEvent[] = [
      ...twoOwners,
      { type: 'MemberSuspended', data: { orgId, userId: admin, by: owner, suspendedAt: now } },
    ];
    spec
      .given(otherSuspended)
      .when({ type: 'ChangeMember', actor: asOwner, userId: owner, role: 'admin', now })
      .thenThrows(Conflict, /owner/);
    // The old AddMember path keeps the rule too.
    spec
      .given(otherSuspended)
      .when({ type: 'AddMember', userId: owner, role: 'viewer', now })
      .thenThrows(Conflict, /owner/);
  });

  test('nobody suspends themselves', () => {
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asAdmin, userId: admin, status: 'suspended', now })
      .thenThrows(Conflict, /yourself/);
  });

  test('removing: managers remove others, anyone leaves, others may not remove anyone', () => {
    spec
      .given(team)
      .when({ type: 'RemoveMember', actor: asAdmin, userId: editor, now })
      .then([{ type: 'MemberRemoved', data: { orgId, userId: editor, by: admin, removedAt: now } }]);
    spec
      .given(team)
      .when({ type: 'RemoveMember', actor: asEditor, userId: editor, now })
      .then([{ type: 'MemberRemoved', data: { orgId, userId: editor, by: editor, removedAt: now } }]);
    spec
      .given(team)
      .when({ type: 'RemoveMember', actor: asEditor, userId: admin, now })
      .thenThrows(Forbidden);
    spec
      .given(team)
      .when({ type: 'RemoveMember', actor: asAdmin, userId: editor, now })
      .thenState((s) => {
        expect(s.status === 'active' && s.members[editor]).toBeUndefined();
      });
  });

  test('an unknown member is a 404; a removed member can join again, active', () => {
    spec
      .given(team)
      .when({ type: 'ChangeMember', actor: asAdmin, userId: other, role: 'viewer', now })
      .thenThrows(NotFound, /Member/);
    spec
      .given(team)
      .when({ type: 'RemoveMember', actor: asAdmin, userId: other, now })
      .thenThrows(NotFound, /Member/);
    const removed: WorkspaceEvent = {
      type: 'MemberRemoved',
      data: { orgId, userId: editor, by: admin, removedAt: now },
    };
    spec
      .given([...team, removed])
      .when({ type: 'AddMember', userId: editor, role: 'viewer', now })
      .then([{ type: 'MemberJoined', data: { orgId, userId: editor, role: 'viewer', joinedAt: now } }]);
  });
});

describe('workspace decider: details and deletion', () => {
  const later = '2026-11-22T11:00:00.000Z';

  test('name, slug and avatar change together in one event with the values after the change', () => {
    spec
      .given(created)
      .when({
        type: 'UpdateWorkspace',
        name: ' Acme Two ',
        avatarUrl: 'https://cdn.example.org/a.png',
        now: later,
      })
      .then([
        {
          type: 'WorkspaceUpdated',
          data: {
            orgId,
            name: 'Acme Two',
            slug: 'acme',
            avatarUrl: 'https://cdn.example.org/a.png',
            updatedAt: later,
          },
        },
      ]);
    spec
      .given(created)
      .when({ type: 'UpdateWorkspace', slug: 'acme-2', now: later })
      .thenState((s) => {
        expect(s.status === 'active' && [s.slug, s.updatedAt]).toEqual(['acme-2', later]);
      });
  });

  test('unchanged details decide nothing; bad ones are refused naming the field', () => {
    spec.given(created).when({ type: 'UpdateWorkspace', name: 'Acme', slug: 'acme', now }).then([]);
    for (const [command, field] of [
      [{ name: '  ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ slug: 'Not A Slug' }, 'slug'],
      [{ avatarUrl: 'http://example.org/a.png' }, 'avatarUrl'],
      [{ avatarUrl: 'javascript:alert(1)' }, 'avatarUrl'],
    ] as const) {
      let error: unknown;
      try {
        workspaceDecider.decide({ type: 'UpdateWorkspace', ...command, now }, fold(created));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details?.[0]?.path).toBe(field);
    }
  });

  test('only an owner deletes; afterwards every command is a 410 and the history stays', () => {
    const deleted: WorkspaceEvent = {
      type: 'WorkspaceDeleted',
      data: { orgId, by: owner, deletedAt: later },
    };
    spec
      .given(created)
      .when({ type: 'DeleteWorkspace', actor: { userId: owner, role: 'owner' }, now: later })
      .then([deleted]);
    spec
      .given(created)
      .when({ type: 'DeleteWorkspace', actor: { userId: other, role: 'admin' }, now: later })
      .thenThrows(Forbidden);
    spec
      .given([])
      .when({ type: 'DeleteWorkspace', actor: { userId: owner, role: 'owner' }, now })
      .thenThrows(NotFound);
    for (const command of [
      { type: 'DeleteWorkspace', actor: { userId: owner, role: 'owner' }, now },
      { type: 'UpdateWorkspace', name: 'Again', now },
      { type: 'AddMember', userId: other, role: 'editor', now },
      { type: 'ChangeMember', actor: { userId: owner, role: 'owner' }, userId: owner, role: 'admin', now },
      { type: 'RemoveMember', actor: { userId: owner, role: 'owner' }, userId: owner, now },
      { type: 'CreateWorkspace', orgId, slug: 'acme', name: 'Acme', ownerId: owner, now },
    ] as const) {
      spec
        .given([...created, deleted])
        .when(command)
        .thenThrows(command.type === 'CreateWorkspace' ? Conflict : Gone);
    }
    spec
      .given(created)
      .when({ type: 'DeleteWorkspace', actor: { userId: owner, role: 'owner' }, now: later })
      .thenState((s) => {
        expect(s.status).toBe('deleted');
        expect(s.status !== 'absent' && Object.keys(s.members)).toEqual([owner]);
      });
  });
});

describe('slug reservation decider', () => {
  const slugSpec = deciderSpec(slugReservationDecider);
  const reserved = [{ type: 'SlugReserved' as const, data: { slug: 'acme', orgId, reservedAt: now } }];

  test('a free slug is reserved; the same workspace reserving again changes nothing', () => {
    slugSpec
      .given([])
      .when({ type: 'ReserveSlug', slug: 'acme', orgId, now, holderUsesSlug: false })
      .then(reserved);
    slugSpec
      .given(reserved)
      .when({ type: 'ReserveSlug', slug: 'acme', orgId, now, holderUsesSlug: false })
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
        holderUsesSlug: true,
      })
      .thenThrows(Conflict, /taken/);
  });

  test('a slug its workspace no longer uses (renamed away, deleted) is free a minute after it was reserved', () => {
    const later = '2026-11-22T10:05:00.000Z';
    slugSpec
      .given(reserved)
      .when({ type: 'ReserveSlug', slug: 'acme', orgId: other, now: later, holderUsesSlug: false })
      .then([{ type: 'SlugReserved', data: { slug: 'acme', orgId: other, reservedAt: later } }]);
    // Within the minute it may still be on its way into the workspace (a rename in flight).
    slugSpec
      .given(reserved)
      .when({
        type: 'ReserveSlug',
        slug: 'acme',
        orgId: other,
        now: '2026-11-22T10:00:10.000Z',
        holderUsesSlug: false,
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
        holderUsesSlug: false,
      })
      .thenThrows(Conflict);
    const later = '2026-11-22T10:01:00.000Z';
    slugSpec
      .given(reserved)
      .when({ type: 'ReserveSlug', slug: 'acme', orgId: other, now: later, holderUsesSlug: false })
      .then([{ type: 'SlugReserved', data: { slug: 'acme', orgId: other, reservedAt: later } }]);
  });
});
