// Events are decoded where they come in from the store: upcast from the version they were written in, checked
// against today's shape, refused with the stream, revision and type when they do not hold. Every slice's codec
// reads back what its decider writes.
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { postGroupDecider, postGroupEventTypes } from '../../domain/post-groups/post-group.js';
import { contentHash, type PostContent } from '../../domain/post-groups/post-content.js';
import type { PostGroupCommand, PostGroupEvent } from '../../domain/post-groups/post-group.js';
import type { Decider, DomainEvent } from '../../domain/shared/decider.js';
import {
  defineEventCodec,
  EventDecodingError,
  zodCheck,
  zodEventCodec,
  zodSpecs,
  type EventCodec,
  type EventsOf,
  type StoredEvent,
} from '../../domain/shared/event-codec.js';
import { socialAccountDecider } from '../../domain/social-accounts/social-account.js';
import { workspaceTagsDecider } from '../../domain/tags/tags.js';
import { userDecider, userEmailDecider } from '../../domain/users/user.js';
import { slugReservationDecider } from '../../domain/workspaces/slug-reservation.js';
import { workspaceDecider } from '../../domain/workspaces/workspace.js';
import {
  account1,
  create,
  deletePost,
  editor,
  groupId,
  image,
  linkedinPostId,
  now,
  orgId,
  postNow,
  reject,
  reviewer,
  tomorrow,
  updateGroup,
  updatePost,
  xPost,
  xPostId,
  linkedinPost,
} from '../support/post-group-fixtures.js';

/** What the store would hand back: the data through JSON, stamped with the version the writer stamps. */
function stored<E extends DomainEvent>(codec: EventCodec<E>, events: readonly E[], stream = 's-1') {
  return events.map((event, revision): StoredEvent => ({
    streamName: stream,
    revision,
    type: event.type,
    data: JSON.parse(JSON.stringify(event.data)) as unknown,
    metadata: { schemaVersion: codec.schemaVersion(event.type) },
  }));
}

/** Decides the commands in turn, each on the state the previous ones left. */
function decideAll<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, commands: C[]): E[] {
  let state = decider.initialState;
  const events: E[] = [];
  for (const command of commands) {
    for (const event of decider.decide(command, state)) {
      state = decider.evolve(state, event);
      events.push(event);
    }
  }
  return events;
}

describe('the mechanism', () => {
  type Toy = DomainEvent<'Renamed', { fullName: string }> | DomainEvent<'Counted', { count: number }>;
  const specs = zodSpecs<Toy>(
    { Renamed: z.object({ fullName: z.string() }), Counted: z.object({ count: z.number() }) },
    { Renamed: 3 },
  );
  const toy = defineEventCodec<Toy>('toys', specs, [
    // v1 `name` became `displayName` (v2), which became `fullName` (v3).
    { type: 'Renamed', fromVersion: 1, upcast: ({ name, ...rest }) => ({ ...rest, displayName: name }) },
    {
      type: 'Renamed',
      fromVersion: 2,
      upcast: ({ displayName, ...rest }) => ({ ...rest, fullName: displayName }),
    },
  ]);
  const at = (type: string, data: unknown, schemaVersion?: unknown): StoredEvent => ({
    streamName: 'toy-7',
    revision: 4,
    type,
    data,
    metadata: schemaVersion === undefined ? {} : { schemaVersion },
  });

  test('writers stamp the current version of each type', () => {
    expect(toy.schemaVersion('Renamed')).toBe(3);
    expect(toy.schemaVersion('Counted')).toBe(1);
    expect(toy.types).toEqual(['Renamed', 'Counted']);
  });

  test('data of every older version is brought to today’s shape, in order, without touching what was stored', () => {
    const v1 = { name: 'Ada' };
    expect(toy.decode(at('Renamed', v1, 1))).toEqual({ type: 'Renamed', data: { fullName: 'Ada' } });
    expect(v1).toEqual({ name: 'Ada' });
    expect(toy.decode(at('Renamed', { displayName: 'Ada' }, 2)).data).toEqual({ fullName: 'Ada' });
    expect(toy.decode(at('Renamed', { fullName: 'Ada' }, 3)).data).toEqual({ fullName: 'Ada' });
    // Written before versions were stamped: version 1.
    expect(toy.decode(at('Renamed', { name: 'Ada' })).data).toEqual({ fullName: 'Ada' });
  });

  test('today’s data is handed on as stored: nothing stripped or copied', () => {
    const data = { count: 2, note: 'kept' };
    expect(toy.decode(at('Counted', data, 1)).data).toBe(data);
  });

  test('an unknown type, malformed data or a version this code cannot read is refused, naming stream, revision and type', () => {
    const refusal = (event: StoredEvent) => {
      try {
        toy.decode(event);
      } catch (error) {
        return error;
      }
      throw new Error('expected a refusal');
    };
    const unknown = refusal(at('Exploded', {}, 1));
    expect(unknown).toBeInstanceOf(EventDecodingError);
    expect(unknown).toMatchObject({ streamName: 'toy-7', revision: 4, eventType: 'Exploded' });
    expect((unknown as Error).message).toBe(
      'Cannot read event Exploded at revision 4 of stream toy-7: not an event type of toys',
    );
    expect((refusal(at('Counted', { count: 'two' }, 1)) as Error).message).toMatch(
      /^Cannot read event Counted at revision 4 of stream toy-7: data\.count: /,
    );
    expect((refusal(at('Renamed', { fullName: 'Ada' }, 4)) as Error).message).toMatch(
      /schemaVersion 4 is newer than this code reads \(3\)/,
    );
    expect((refusal(at('Renamed', { fullName: 'Ada' }, '2')) as Error).message).toMatch(/is not a version/);
    expect((refusal(at('Renamed', null, 1)) as Error).message).toMatch(/data of version 1 is not an object/);
    // An upcast that leaves something out is caught by today's schema.
    expect((refusal(at('Renamed', { nickname: 'Ada' }, 1)) as Error).message).toMatch(/data\.fullName/);
  });

  test('a codec that could not read every version of a type does not start', () => {
    expect(() => defineEventCodec<Toy>('toys', specs, [])).toThrow('Renamed has no upcaster from version 1');
    expect(() =>
      defineEventCodec<Toy>('toys', specs, [
        { type: 'Renamed', fromVersion: 1, upcast: (d) => d },
        { type: 'Renamed', fromVersion: 2, upcast: (d) => d },
        { type: 'Counted', fromVersion: 1, upcast: (d) => d },
      ]),
    ).toThrow('Counted is at version 1; no upcaster from 1');
    expect(() =>
      defineEventCodec<Toy>('toys', specs, [
        { type: 'Renamed', fromVersion: 1, upcast: (d) => d },
        { type: 'Renamed', fromVersion: 1, upcast: (d) => d },
        { type: 'Renamed', fromVersion: 2, upcast: (d) => d },
      ]),
    ).toThrow('two upcasters for Renamed@1');
  });

  test('a codec built from the schemas its events are declared by: the union is read off them', () => {
    const schemas = {
      Renamed: z.object({ fullName: z.string() }),
      Counted: z.object({ count: z.number() }),
    };
    type Declared = EventsOf<typeof schemas>;
    const both: Declared[] = [
      { type: 'Renamed', data: { fullName: 'Ada' } },
      { type: 'Counted', data: { count: 2 } },
    ];
    // @ts-expect-error: data of another type's shape is not one of the declared events.
    const wrong: Declared = { type: 'Counted', data: { fullName: 'Ada' } };
    void wrong;
    const declared: EventCodec<Declared> = zodEventCodec('toys', schemas, {
      versions: { Renamed: 2 },
      upcasters: [
        { type: 'Renamed', fromVersion: 1, upcast: ({ name, ...rest }) => ({ ...rest, fullName: name }) },
      ],
    });
    expect(declared.schemaVersion('Renamed')).toBe(2);
    expect(declared.schemaVersion('Counted')).toBe(1);
    expect(declared.decode(at('Renamed', { name: 'Ada' }, 1))).toEqual(both[0]);
    expect(declared.decode(at('Counted', { count: 2 }, 1))).toEqual(both[1]);
    expect(() => declared.decode(at('Counted', { count: 'two' }, 1))).toThrow(EventDecodingError);
    expect(() => zodEventCodec('toys', schemas, { versions: { Counted: 2 } })).toThrow(
      'toys: Counted has no upcaster from version 1',
    );
  });

  test('zodCheck names at most three problems with their paths', () => {
    const check = zodCheck(z.object({ a: z.string(), b: z.string(), c: z.string(), d: z.string() }));
    expect(check({ a: 'x', b: 'y', c: 'z', d: 'w' })).toBeUndefined();
    expect(check({})?.split('; ')).toHaveLength(3);
  });
});

describe('each slice reads back what its decider writes', () => {
  const at = (minutes: number) => new Date(Date.parse(now) + minutes * 60_000).toISOString();
  const pipeline = (command: Record<string, unknown>, minutes: number) =>
    ({ ...command, by: 'system', now: at(minutes) }) as PostGroupCommand;

  test('post groups: a life with every event type', () => {
    const events = decideAll(postGroupDecider, [
      create('post_groups', [
        { ...xPost, socialAccountId: account1 },
        { ...linkedinPost, media: image, platformPayload: null },
      ]),
      updateGroup({ title: 'Scheduler launch, take two' }, 'pending_approval'),
      reject({ reason: 'too_promotional', note: 'Less shouting' }),
      updatePost(linkedinPostId, { contentText: 'Quieter now.' }),
      updateGroup({}, 'pending_approval'),
      {
        type: 'ApprovePostGroup',
        schedule: {
          [xPostId]: { scheduledForUtc: tomorrow, scheduleReason: 'Best slot' },
          [linkedinPostId]: { scheduledForUtc: tomorrow, scheduleReason: 'Best slot' },
        },
        approvalId: '30000000-0000-4000-8000-000000000002',
        by: reviewer,
        now,
      },
      updatePost(linkedinPostId, {}, { status: 'approved' }),
      postNow(linkedinPostId),
      pipeline({ type: 'StartPublishAttempt', postId: linkedinPostId, socialAccountId: null }, 1),
      pipeline(
        {
          type: 'RecordPublishOutcome',
          postId: linkedinPostId,
          attempt: 1,
          outcome: { kind: 'pending', reference: 'upload-1', nextCheckAt: at(5) },
        },
        2,
      ),
      pipeline(
        {
          type: 'RecordPublishOutcome',
          postId: linkedinPostId,
          attempt: 1,
          outcome: { kind: 'published', externalId: 'urn:li:share:1', url: 'https://linkedin.com/1' },
        },
        6,
      ),
      pipeline({ type: 'StartPublishAttempt', postId: xPostId, socialAccountId: account1 }, 24 * 60),
      pipeline(
        {
          type: 'RecordPublishOutcome',
          postId: xPostId,
          attempt: 1,
          outcome: { kind: 'failed', error: 'X answered 503', reason: 'retryable', nextRetryAt: at(25 * 60) },
        },
        24 * 60 + 1,
      ),
      pipeline(
        { type: 'RemoveSocialAccount', socialAccountId: account1, message: 'Account removed' },
        24 * 60 + 2,
      ),
      { ...deletePost(linkedinPostId), by: editor },
    ]);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(postGroupEventTypes));
    const decoded = postGroupDecider.codec.decodeAll(
      stored(postGroupDecider.codec, events, `postGroup-${groupId}`),
    );
    expect(decoded).toEqual(events);
    expect(decoded.reduce(postGroupDecider.evolve, postGroupDecider.initialState)).toEqual(
      events.reduce(postGroupDecider.evolve, postGroupDecider.initialState),
    );
  });

  test('post groups: malformed data is refused before it reaches evolve', () => {
    const [created] = decideAll(postGroupDecider, [create('drafts')]) as [PostGroupEvent];
    const [event] = stored(postGroupDecider.codec, [created], `postGroup-${groupId}`);
    const broken = {
      ...event!,
      data: { ...(event!.data as object), posts: [{ ...xPost, platform: 'myspace' }] },
    };
    expect(() => postGroupDecider.codec.decode(broken)).toThrow(
      new RegExp(
        `^Cannot read event PostGroupCreated at revision 0 of stream postGroup-${groupId}: data\\.posts\\.0\\.`,
      ),
    );
    // The changes of an edit are spread onto the group: an unknown key there is refused.
    const [updated] = decideAll(postGroupDecider, [create('post_groups'), updateGroup({ topic: 'x' })]).slice(
      1,
    );
    const [stray] = stored(postGroupDecider.codec, [updated!]);
    const withStray = {
      ...stray!,
      data: { ...(stray!.data as { changes: object }), changes: { kind: 'absent' } },
    };
    expect(() => postGroupDecider.codec.decode(withStray)).toThrow(/data\.changes/);
  });

  test('post groups: media carrying the library’s sha256 read back with it; media stored without one as before', () => {
    const sha256 = 'c'.repeat(64);
    const { kind: _kind, ...item } = image;
    const hashed = decideAll(postGroupDecider, [
      create('drafts', [
        { ...linkedinPost, media: { ...image, sha256 } },
        { ...xPost, media: { kind: 'images', images: [{ ...item, sha256 }, item] } },
      ]),
      updatePost(linkedinPostId, { media: { ...image, sha256: 'd'.repeat(64) } }),
    ]);
    const decoded = postGroupDecider.codec.decodeAll(stored(postGroupDecider.codec, hashed));
    expect(decoded).toEqual(hashed);
    const state = decoded.reduce(postGroupDecider.evolve, postGroupDecider.initialState);
    const posts = state.kind === 'absent' ? [] : state.posts;
    expect(posts.map((p) => p.media)).toEqual([
      { ...image, sha256: 'd'.repeat(64) },
      { kind: 'images', images: [{ ...item, sha256 }, item] },
    ]);
    // An event stored before media carried hashes: no sha256 appears, and its stored hash is still the content's.
    const [old] = decideAll(postGroupDecider, [create('drafts', [{ ...linkedinPost, media: image }])]);
    const [oldDecoded] = postGroupDecider.codec.decodeAll(stored(postGroupDecider.codec, [old!]));
    const oldPost = (oldDecoded!.data as { posts: Array<PostContent & { contentHash: string }> }).posts[0]!;
    expect(oldPost.media).toEqual(image);
    expect(Object.keys(oldPost.media!)).not.toContain('sha256');
    expect(contentHash(oldPost)).toBe(oldPost.contentHash);
  });

  test('workspaces, slugs, users, e-mails, tags and social accounts', () => {
    const t = '2026-11-22T10:00:00.000Z';
    const check = <S, C, E extends DomainEvent>(decider: Decider<S, C, E>, commands: C[]) => {
      const events = decideAll(decider, commands);
      expect(events.length).toBeGreaterThan(0);
      expect(decider.codec.decodeAll(stored(decider.codec, events))).toEqual(events);
      return new Set(events.map((e) => e.type));
    };
    expect(
      check(workspaceDecider, [
        { type: 'CreateWorkspace', orgId, slug: 'acme', name: 'Acme', ownerId: editor, now: t },
        { type: 'AddMember', userId: reviewer, role: 'reviewer', now: t },
        { type: 'AddMember', userId: reviewer, role: 'editor', now: t },
        {
          type: 'ChangeMember',
          actor: { userId: editor, role: 'owner' },
          userId: reviewer,
          status: 'suspended',
          now: t,
        },
        {
          type: 'ChangeMember',
          actor: { userId: editor, role: 'owner' },
          userId: reviewer,
          status: 'active',
          now: t,
        },
        { type: 'RemoveMember', actor: { userId: editor, role: 'owner' }, userId: reviewer, now: t },
        { type: 'UpdateWorkspace', name: 'Acme Two', avatarUrl: 'https://example.org/a.png', now: t },
        { type: 'DeleteWorkspace', actor: { userId: editor, role: 'owner' }, now: t },
      ]),
    ).toEqual(new Set(workspaceDecider.codec.types));
    check(slugReservationDecider, [
      { type: 'ReserveSlug', slug: 'acme', orgId, now: t, holderUsesSlug: false },
    ]);
    expect(
      check(userDecider, [
        { type: 'RegisterUser', userId: editor, email: 'e@example.org', name: null, now: t },
        { type: 'UpdateProfile', changes: { name: 'Edith', timezone: 'Europe/Berlin' }, now: t },
        { type: 'VerifyEmail', email: 'e@example.org', method: 'email_link', now: t },
        { type: 'SetProfileImage', key: 'users/e/profile-image/a.png', avatarUrl: 'https://a/x.png', now: t },
        { type: 'RemoveProfileImage', now: t },
      ]),
    ).toEqual(new Set(userDecider.codec.types));
    check(userEmailDecider, [{ type: 'ClaimEmail', email: 'e@example.org', userId: editor, now: t }]);
    expect(
      check(workspaceTagsDecider, [
        { type: 'CreateTag', orgId, tagId: '60000000-0000-4000-8000-000000000001', name: 'Launch', now: t },
        { type: 'UpdateTag', tagId: '60000000-0000-4000-8000-000000000001', color: '#ff8800', now: t },
        { type: 'DeleteTag', tagId: '60000000-0000-4000-8000-000000000001', now: t },
      ]),
    ).toEqual(new Set(workspaceTagsDecider.codec.types));
    const profile = {
      accountName: 'Acme',
      accountHandle: 'acme',
      profileImageUrl: null,
      profileUrl: null,
      accountBio: null,
      xSubscription: 'premium' as const,
    };
    expect(
      check(socialAccountDecider, [
        {
          type: 'ConnectSocialAccount',
          accountId: account1,
          orgId,
          platform: 'x',
          accountExternalId: '42',
          profile,
          scopes: ['tweet.write'],
          tokenExpiresAt: '2026-11-22T12:00:00.000Z',
          now: t,
        },
        { type: 'SetProfileUrl', profileUrl: 'https://x.com/acme', now: t },
        { type: 'RecordTokensRefreshed', tokenExpiresAt: '2026-11-22T14:00:00.000Z', now: t },
        { type: 'RecordTokenExpiring', tokenExpiresAt: '2026-11-22T14:00:00.000Z', now: t },
        { type: 'RecordRefreshFailed', reason: 'invalid_grant', now: t },
        {
          type: 'ConnectSocialAccount',
          accountId: account1,
          orgId,
          platform: 'x',
          accountExternalId: '42',
          profile,
          scopes: ['tweet.write'],
          tokenExpiresAt: null,
          now: t,
        },
        { type: 'DisconnectSocialAccount', reason: 'revoked', now: t },
        { type: 'DeleteSocialAccount', now: t },
      ]),
    ).toEqual(new Set(socialAccountDecider.codec.types));
  });
});
