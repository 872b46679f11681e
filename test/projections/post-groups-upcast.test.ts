// Events written in an older shape stay readable. PostAwaitingPlatform v1 carried the platform's handle as
// `reference`; v2 calls it `publishReference`. A group whose stream holds v1 events (as the store kept them before
// v2) folds to today's state through the command path, and the post_groups read models rebuilt from the log are
// today's, with a v2 event appended by today's code after the v1 ones.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { loadPostGroup, postGroupStream } from '../../commands/post-groups/post-group-commands.js';
import { recordPublishOutcome } from '../../commands/publishing/publish-commands.js';
import {
  postGroupDecider,
  publishWork,
  type ActivePostGroup,
  type PostGroupCommand,
  type PostGroupEvent,
} from '../../domain/post-groups/post-group.js';
import { postGroupView, postView } from '../../domain/post-groups/views.js';
import type { NewEvent } from '../../infra/event-store/port.js';
import { rebuildProjection } from '../../projections/engine/rebuild.js';
import { startTestService, type TestService } from '../support/runtime.js';

let service: TestService;

beforeAll(async () => {
  // No publishing: the group's times are far ahead anyway, and nothing should act on it but this test.
  service = await startTestService({ publishing: { sweep: false, work: false } });
});
afterAll(async () => service.stop());

const orgId = randomUUID();
const groupId = randomUUID();
const xPostId = randomUUID();
const linkedinPostId = randomUUID();
const editor = randomUUID();
const at = (minutes: number) =>
  new Date(Date.parse('2099-03-01T09:00:00.000Z') + minutes * 60_000).toISOString();

/** Today's events of a group whose X post waits for the platform and whose LinkedIn post is scheduled. */
function todaysLife(): PostGroupEvent[] {
  const commands: PostGroupCommand[] = [
    {
      type: 'CreatePostGroup',
      orgId,
      groupId,
      fields: {
        title: 'Launch',
        topic: null,
        objective: null,
        timezone: 'UTC',
        scheduledFor: null,
        tagIds: [],
      },
      strategy: {
        strategyId: null,
        strategyVersion: null,
        pillarId: null,
        priorityId: null,
        contentType: null,
        opportunityId: null,
      },
      posts: [
        {
          postId: xPostId,
          platform: 'x',
          socialAccountId: null,
          contentText: 'Launch day',
          media: null,
          platformPayload: null,
        },
        {
          postId: linkedinPostId,
          platform: 'linkedin',
          socialAccountId: null,
          contentText: 'We launch today.',
          media: null,
          platformPayload: null,
        },
      ],
      origin: 'drafts',
      approvalId: randomUUID(),
      by: editor,
      now: at(0),
    },
    {
      type: 'ApprovePostGroup',
      schedule: {
        [xPostId]: { scheduledForUtc: at(60), scheduleReason: 'Best slot' },
        [linkedinPostId]: { scheduledForUtc: at(24 * 60), scheduleReason: 'Best slot' },
      },
      approvalId: randomUUID(),
      by: editor,
      now: at(1),
    },
    { type: 'StartPublishAttempt', postId: xPostId, socialAccountId: null, by: 'system', now: at(60) },
    {
      type: 'RecordPublishOutcome',
      postId: xPostId,
      attempt: 1,
      outcome: { kind: 'pending', reference: 'media-upload-77', nextCheckAt: at(65) },
      by: 'system',
      now: at(61),
    },
  ];
  let state = postGroupDecider.initialState;
  const events: PostGroupEvent[] = [];
  for (const command of commands)
    for (const event of postGroupDecider.decide(command, state)) {
      state = postGroupDecider.evolve(state, event);
      events.push(event);
    }
  return events;
}

/** How the store kept these events before v2: PostAwaitingPlatform with `reference`, every event at version 1. */
function asWrittenBeforeV2(event: PostGroupEvent): NewEvent {
  let data: unknown = event.data;
  if (event.type === 'PostAwaitingPlatform') {
    const { publishReference, ...rest } = event.data;
    data = { ...rest, reference: publishReference };
  }
  return {
    type: event.type,
    data,
    metadata: {
      orgId,
      actor: editor,
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: (event.data as { at: string }).at,
      schemaVersion: 1,
    },
  };
}

async function readModels(): Promise<{ group: unknown; posts: unknown[] }> {
  const db = service.runtime.database.db;
  const group = await sql<{ state: unknown; body: unknown; revision: number }>`
    select state, body, revision from post_groups where id = ${groupId}`.execute(db);
  const posts = await sql<{
    id: string;
    status: string;
    body: unknown;
    publish_action: string | null;
    publish_due_at: string | null;
  }>`
    select id, status, body, publish_action, publish_due_at from posts where group_id = ${groupId} order by id`.execute(
    db,
  );
  return { group: group.rows[0], posts: posts.rows };
}

function expectedReadModels(state: ActivePostGroup, revision: number) {
  return {
    group: { state, body: postGroupView(state), revision },
    posts: [...state.posts]
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((p) => {
        const work = publishWork(p);
        return {
          id: p.id,
          status: p.status,
          body: postView(state, p),
          publish_action: work?.action ?? null,
          publish_due_at: work?.dueAt ?? null,
        };
      }),
  };
}

async function rebuild() {
  const { runtime } = service;
  await rebuildProjection(
    {
      db: runtime.database.db,
      eventStore: runtime.eventStore,
      projections: runtime.projections,
      logger: runtime.logger,
    },
    'post_groups',
  );
}

test('a stream of v1 events folds to today’s state, and a rebuild gives today’s read models', async () => {
  const { runtime } = service;
  const today = todaysLife();
  const awaiting = today.find((e) => e.type === 'PostAwaitingPlatform');
  expect(awaiting?.data).toMatchObject({ publishReference: 'media-upload-77' });
  await runtime.eventStore.appendToStream(postGroupStream(groupId), today.map(asWrittenBeforeV2), {
    expectedRevision: 'no_stream',
  });

  // Stored as v1: the old field name, version 1.
  const stored = await runtime.eventStore.readStream(postGroupStream(groupId));
  const v1 = stored.find((e) => e.type === 'PostAwaitingPlatform')!;
  expect(v1.metadata.schemaVersion).toBe(1);
  expect(v1.data).toMatchObject({ reference: 'media-upload-77' });
  expect(v1.data).not.toHaveProperty('publishReference');

  // The command path folds today's state.
  const expected = today.reduce(postGroupDecider.evolve, postGroupDecider.initialState) as ActivePostGroup;
  const loaded = await loadPostGroup(runtime.commands, orgId, groupId);
  expect(loaded.group).toEqual(expected);
  expect(loaded.group.posts.find((p) => p.id === xPostId)).toMatchObject({
    status: 'awaiting_platform',
    publishReference: 'media-upload-77',
  });

  await rebuild();
  // The rebuild switches once it has read to the end of the log as far as it is visible; events behind another
  // transaction still open on the server (another test file's) are folded by the runner right after.
  await expect.poll(readModels, { timeout: 15_000 }).toEqual(expectedReadModels(expected, today.length - 1));

  // Today's code writes v2 after the v1 events; both read back, and the rebuild follows the latest.
  await recordPublishOutcome(
    runtime.commands,
    { orgId, groupId, postId: xPostId, attempt: 1 },
    { kind: 'pending', reference: 'media-upload-78', nextCheckAt: at(70) },
    new Date(at(66)),
  );
  const appended = (await runtime.eventStore.readStream(postGroupStream(groupId))).at(-1)!;
  expect(appended).toMatchObject({
    type: 'PostAwaitingPlatform',
    data: { publishReference: 'media-upload-78' },
    metadata: { schemaVersion: 2 },
  });
  const after = (await loadPostGroup(runtime.commands, orgId, groupId)).group;
  expect(after.posts.find((p) => p.id === xPostId)).toMatchObject({
    publishReference: 'media-upload-78',
    nextRetryAt: at(70),
  });
  await rebuild();
  await expect.poll(readModels, { timeout: 15_000 }).toEqual(expectedReadModels(after, today.length));
});
