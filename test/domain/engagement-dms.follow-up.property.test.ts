// The follow-up rule (docs/decisions.md, "Engagement settings and DMs"): a conversation waiting on them is due at
// 09:00 on the workspace's clocks, three local days after the day of my last message. Checked against Luxon for
// random instants around the clock changes of 2026 in zones going forward and back (and one with a 30-minute
// change), and examples across the EU and US changes; the view's followUpDue flips exactly at followUpAt.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, test } from 'vitest';
import type { DmConversation } from '../../domain/engagement/dm-conversation.js';
import { dmConversationView, followUpAtOf } from '../../domain/engagement/dm-views.js';
import { propertyRuns } from '../support/property-runs.js';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

const zones = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Sydney',
  'Australia/Lord_Howe', // a 30-minute change
  'America/Santiago',
  'Asia/Kolkata',
  'UTC',
] as const;

/** 2026's clock changes: EU, US, Sydney and Lord Howe (both ways), Santiago (both ways). */
const changes = [
  '2026-03-29T01:00:00Z',
  '2026-10-25T01:00:00Z',
  '2026-03-08T07:00:00Z',
  '2026-11-01T06:00:00Z',
  '2026-04-04T16:00:00Z',
  '2026-10-03T16:00:00Z',
  '2026-04-04T15:00:00Z',
  '2026-10-03T15:30:00Z',
  '2026-04-05T03:00:00Z',
  '2026-09-06T04:00:00Z',
].map(Date.parse);

const instantArb = fc.oneof(
  fc
    .tuple(fc.constantFrom(...changes), fc.integer({ min: -5 * day, max: 2 * day }))
    .map(([t, d]) => new Date(t + d).toISOString()),
  fc
    .integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') })
    .map((t) => new Date(t).toISOString()),
);

const waiting = (lastMessageAt: string): DmConversation => ({
  orgId: '00000000-0000-4000-8000-000000000001',
  conversationId: '00000000-0000-4000-8000-0000000000c1',
  handle: 'alex',
  notes: null,
  messages: [
    { id: 'm1', from: 'them', text: 'Hi', at: new Date(Date.parse(lastMessageAt) - hour).toISOString() },
    { id: 'm2', from: 'me', text: 'Hello', at: lastMessageAt },
  ],
  closed: false,
  draft: null,
  createdAt: lastMessageAt,
  updatedAt: lastMessageAt,
});

describe('followUpAt', () => {
  test('09:00 local, three local days after the day of my last message, in every zone, across clock changes', () => {
    fc.assert(
      fc.property(instantArb, fc.constantFrom(...zones), (last, zone) => {
        const at = followUpAtOf(last, zone);
        const local = DateTime.fromISO(at, { zone });
        const sent = DateTime.fromISO(last, { zone });
        expect(local.toFormat('HH:mm')).toBe('09:00');
        expect(local.toISODate()).toBe(sent.plus({ days: 3 }).toISODate());
        // Between 2 days 9 hours (sent at midnight's end) and 3 days 9 hours later, give or take the change.
        const gap = Date.parse(at) - Date.parse(last);
        expect(gap).toBeGreaterThan(2 * day + 8 * hour);
        expect(gap).toBeLessThanOrEqual(3 * day + 10 * hour);
      }),
      { numRuns: propertyRuns(2000, 300) },
    );
  });

  test('the view: waiting has followUpAt, due exactly from then on; your turn and closed have none', () => {
    fc.assert(
      fc.property(instantArb, fc.constantFrom(...zones), (last, timezone) => {
        const conversation = waiting(last);
        const at = followUpAtOf(last, timezone);
        const before = new Date(Date.parse(at) - 1).toISOString();
        expect(dmConversationView(conversation, { now: before, timezone })).toMatchObject({
          status: 'waiting',
          followUpAt: at,
          followUpDue: false,
        });
        expect(dmConversationView(conversation, { now: at, timezone }).followUpDue).toBe(true);
        const theirs = { ...conversation, messages: [...conversation.messages].reverse() };
        expect(dmConversationView(theirs, { now: at, timezone })).toMatchObject({
          status: 'your_turn',
          followUpAt: null,
          followUpDue: false,
        });
        expect(dmConversationView({ ...conversation, closed: true }, { now: at, timezone })).toMatchObject({
          status: 'closed',
          followUpAt: null,
          followUpDue: false,
        });
      }),
      { numRuns: propertyRuns(500, 100) },
    );
  });

  test('examples across the changes: the clocks say 09:00 whatever the offset', () => {
    // Berlin, Friday noon CEST; clocks go back on Sunday: Monday 09:00 CET.
    expect(followUpAtOf('2026-10-23T10:00:00.000Z', 'Europe/Berlin')).toBe('2026-10-26T08:00:00.000Z');
    // Berlin, Friday noon CET; clocks go forward on Sunday: Monday 09:00 CEST.
    expect(followUpAtOf('2026-03-27T11:00:00.000Z', 'Europe/Berlin')).toBe('2026-03-30T07:00:00.000Z');
    // New York, Friday 10:00 EST; clocks go forward on Sunday: Monday 09:00 EDT.
    expect(followUpAtOf('2026-03-06T15:00:00.000Z', 'America/New_York')).toBe('2026-03-09T13:00:00.000Z');
    // Late evening counts for its own local day: Tuesday 23:30 in Berlin is Tuesday, not Wednesday (UTC).
    expect(followUpAtOf('2026-06-02T21:30:00.000Z', 'Europe/Berlin')).toBe('2026-06-05T07:00:00.000Z');
    expect(followUpAtOf('2026-06-02T21:30:00.000Z', 'UTC')).toBe('2026-06-05T09:00:00.000Z');
  });
});
