// The follower-count read models: every reading kept by its time, each account's standing (its readings, the last
// one, whether its counts cannot be read); applying a page twice, or a reading already folded, changes nothing,
// and an unavailability keeps the readings it came after.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { audienceEventCodec, type AudienceEvent } from '../../domain/analytics/audience-codec.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import { audienceProjection } from '../../projections/analytics/audience-projection.js';
import type { ReadModels } from '../../projections/read-models.js';
import { testMetadata } from '../support/events.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

const schema = 'rm_account_audience_g1';
let database: TestDatabase<ReadModels>;
let db: Kysely<ReadModels>;

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>();
  db = database.db;
  await db.transaction().execute(async (trx) => {
    await sql`create schema ${sql.id(schema)}`.execute(trx);
    await audienceProjection.createTables(trx, schema);
  });
});
afterAll(async () => database?.drop());

const orgId = randomUUID();
const accountId = randomUUID();

function stored(event: AudienceEvent, revision: number): RecordedEvent {
  return {
    id: randomUUID(),
    streamName: `accountAudience-${accountId}`,
    revision,
    type: event.type,
    data: event.data,
    metadata: testMetadata({ schemaVersion: audienceEventCodec.schemaVersion(event.type) }),
    position: `pg:1:${revision}`,
    recordedAt: new Date().toISOString(),
  };
}

const subject = { orgId, socialAccountId: accountId, platform: 'x' as const };
const read = (followers: number, readAt: string): AudienceEvent => ({
  type: 'AccountStatsRead',
  data: { ...subject, followers, following: 10, posts: null, readAt },
});

async function fold(...events: RecordedEvent[]) {
  await db.transaction().execute(async (trx) => audienceProjection.fold(trx, events, schema));
}

const readings = async () =>
  (
    await sql<{ read_at: string; followers: string; posts: string | null }>`
      select read_at, followers, posts from ${sql.id(schema, 'account_audience_readings')} order by read_at`.execute(
      db,
    )
  ).rows;
const status = async () =>
  (await sql`select * from ${sql.id(schema, 'account_audience_status')}`.execute(db)).rows[0];

test('readings are kept by their time; the standing follows the stream, and a replay changes nothing', async () => {
  const page = [
    stored(read(100, '2026-03-01T10:00:00.000Z'), 0),
    stored(read(104, '2026-03-02T10:00:00.000Z'), 1),
    stored(
      {
        type: 'AccountStatsUnavailable',
        data: {
          ...subject,
          reason: 'needs_permission',
          message: 'The grant lacks the users.read scope',
          missingScopes: ['users.read'],
          at: '2026-03-03T10:00:00.000Z',
        },
      },
      2,
    ),
  ];
  await fold(...page);
  const expectedReadings = [
    { read_at: '2026-03-01T10:00:00.000Z', followers: '100', posts: null },
    { read_at: '2026-03-02T10:00:00.000Z', followers: '104', posts: null },
  ];
  expect(await readings()).toEqual(expectedReadings);
  const afterPage = await status();
  expect(afterPage).toMatchObject({
    social_account_id: accountId,
    org_id: orgId,
    revision: 2,
    readings: 2,
    last_read_at: '2026-03-02T10:00:00.000Z',
    unavailable_reason: 'needs_permission',
    missing_scopes: ['users.read'],
    unavailable_since: '2026-03-03T10:00:00.000Z',
  });
  // The same page again, and a reading already folded: nothing moves.
  await fold(...page);
  await fold(page[0]!);
  expect(await readings()).toEqual(expectedReadings);
  expect(await status()).toEqual(afterPage);
  // A reading after the refusal clears it.
  await fold(stored(read(110, '2026-03-04T10:00:00.000Z'), 3));
  expect(await status()).toMatchObject({
    revision: 3,
    readings: 3,
    last_read_at: '2026-03-04T10:00:00.000Z',
    unavailable_reason: null,
    missing_scopes: null,
  });
});
