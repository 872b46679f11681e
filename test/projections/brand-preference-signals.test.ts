// The preference-signal read model's fold: an event applied twice counts once (rows keyed by the event), a person's
// edit that shortens a post is a signal and an assistant's is not, an approval reads the posts' current text and
// the group's topic as the fold left them, and a rejection counts its normalised reason, never its note.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import { eventReader } from '../../projections/engine/event-sources.js';
import type { ReadModels } from '../../projections/read-models.js';
import { preferenceSignalsProjection } from '../../projections/brand-profile/preference-signals-projection.js';
import { testMetadata } from '../support/events.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase<ReadModels>;
let db: Kysely<ReadModels>;

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>({});
  db = database.db;
});
afterAll(async () => database.drop());

const orgId = '00000000-0000-4000-8000-000000000001';
const groupId = '00000000-0000-4000-8000-0000000000a1';
const postId = '00000000-0000-4000-8000-0000000000b1';
const by = (minute: number, assistant = false) => ({
  orgId,
  groupId,
  by: '10000000-0000-4000-8000-000000000001',
  at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
  ...(assistant ? { assistant: { clientId: 'c1', clientName: 'Claude' } } : {}),
});
const long =
  'A long first draft that says the same thing three times, at length, with every detail anyone could want.';

const events: Array<{ type: string; data: Record<string, unknown> }> = [
  {
    type: 'PostGroupCreated',
    data: {
      ...by(0),
      title: 'Launch',
      topic: 'Launch Week',
      objective: null,
      timezone: 'UTC',
      scheduledFor: null,
      tagIds: [],
      strategy: {
        strategyId: null,
        strategyVersion: null,
        pillarId: null,
        priorityId: null,
        contentType: null,
        opportunityId: null,
      },
      origin: 'drafts',
      posts: [
        {
          postId,
          platform: 'x',
          socialAccountId: null,
          contentText: long,
          media: null,
          platformPayload: null,
          contentHash: 'h0',
        },
      ],
    },
  },
  // An assistant shortened it: not a person's preference (but the text it left is the post's text now).
  {
    type: 'PostEdited',
    data: { ...by(1, true), postId, changes: { contentText: `${long.slice(0, 60)}.` }, contentHash: 'h1' },
  },
  { type: 'PostEdited', data: { ...by(2), postId, changes: { contentText: 'Short.' }, contentHash: 'h2' } },
  {
    type: 'PostGroupApproved',
    data: {
      ...by(3),
      level: 'group',
      records: [{ approvalId: 'a1', postId: null, action: 'approved' }],
      posts: [{ postId, contentHash: 'h2' }],
      groupStatus: 'approved',
    },
  },
  {
    type: 'PreferenceSignalRecorded',
    data: { ...by(4), kind: 'reject', signal: 'repetitive', note: 'secret plan', topic: null, posts: [] },
  },
];

function recorded(): RecordedEvent[] {
  return events.map((e, i) => ({
    id: `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`,
    streamName: `postGroup-${groupId}`,
    revision: i,
    type: e.type,
    data: e.data,
    metadata: testMetadata(),
    position: `pg:1:${i}`,
    recordedAt: e.data.at as string,
  }));
}

async function occurrences(schema: string) {
  const { rows } = await sql<{ kind: string; signal: string; n: string }>`
    select kind, signal, count(*) as n from ${sql.id(schema, 'brand_signal_occurrences')}
    group by kind, signal order by kind, signal`.execute(db);
  return rows.map((r) => [r.kind, r.signal, Number(r.n)]);
}

test('each event counts once, however often it is folded; only people’s review counts', async () => {
  const decoded = eventReader(preferenceSignalsProjection.reads).decodeAll(recorded());
  await db.transaction().execute(async (trx) => {
    for (const schema of ['bps_once', 'bps_twice']) {
      await sql`create schema ${sql.id(schema)}`.execute(trx);
      await preferenceSignalsProjection.createTables(trx, schema);
    }
    for (const e of decoded) await preferenceSignalsProjection.apply(trx, e, 'bps_once');
    for (const e of decoded) {
      await preferenceSignalsProjection.apply(trx, e, 'bps_twice');
      await preferenceSignalsProjection.apply(trx, e, 'bps_twice');
    }
  });
  const expected = [
    ['approval', 'Approves posts about launch week', 1],
    ['approval', 'Approves short posts (up to 280 characters)', 1],
    ['edit', 'Prefers shorter posts', 1],
    ['reject', 'Avoid repeating recent topics and phrasing', 1],
  ];
  expect(await occurrences('bps_once')).toEqual(expected);
  expect(await occurrences('bps_twice')).toEqual(expected);
  const all = await sql`select * from ${sql.id('bps_once', 'brand_signal_occurrences')}`.execute(db);
  expect(JSON.stringify(all.rows)).not.toContain('secret');
  await sql`drop schema bps_once cascade; drop schema bps_twice cascade`.execute(db);
});
