// Slices fit together or the service does not start: migration keys and numbers are unique across slices
// (but for the historic 0007 pair), listed in order, and named <number>_<name>; names, projections and
// process managers are declared once; a slice's settings are part of the environment schema; what slices require
// is provided once, and built in dependency order.
import type { Migration } from 'kysely';
import { describe, expect, test } from 'vitest';
import { allMigrations, createRuntime } from '../../../api/runtime.js';
import { slices } from '../../../api/slices.js';
import { provide, ProviderConflict } from '../../../api/shared/provider.js';
import { onboardingProbes } from '../../../api/onboarding/probes.js';
import { contribute, extensionPoint, service } from '../../../api/shared/service.js';
import {
  collectMigrations,
  composeSlices,
  defineSlice,
  SliceConflict,
  type Slice,
} from '../../../api/shared/slice.js';
import { composeSettings, defineSettings, parseSettings } from '../../../infra/config/env.js';
import { z } from 'zod';
import { loadEnv, settingsOfSlices } from '../../../api/env.js';
import { createLogger } from '../../../infra/logging/logger.js';
import { createTestDatabase } from '../../support/postgres.js';
import { workspacesProjection } from '../../../projections/workspaces/workspaces-projection.js';

const noop: Migration = { up: async () => undefined };
const slice = (name: string, ...migrations: string[]): Slice => ({
  name,
  migrations: migrations.map((m) => [m, noop] as const),
});

function conflictOf(run: () => unknown): SliceConflict {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SliceConflict);
    return error as SliceConflict;
  }
  throw new Error('expected a SliceConflict');
}

describe('migrations of the slices', () => {
  test("the service's migrations, in number order, under the names existing databases executed them", () => {
    expect(Object.keys(allMigrations)).toEqual([
      '0001_event_store',
      '0002_projections',
      '0003_outbox',
      '0004_processes',
      '0005_idempotency',
      '0006_slot_claims',
      '0007_sandbox',
      '0007_social_account_tokens',
      '0009_oauth_pending_authorizations',
      '0010_publishing_lease',
      '0015_bluesky_oauth',
      '0016_oauth_browser_binding',
      '0017_oauth_clients',
      '0018_assistant_connections',
      '0019_oauth_tokens',
      '0020_browser_sessions',
      '0021_local_mailbox',
      '0022_sign_in_links',
      '0023_slot_claims_per_post',
      '0024_post_metrics_fetches',
      '0025_slot_claims_unlogged',
      '0028_notification_emails',
      '0029_notification_digests',
      '0030_notifications_start',
      '0032_billing_webhooks',
      '0033_credit_ledger_heads',
      '0034_slot_versions',
      '0035_rate_limit_windows',
      '0036_sandbox_x_posts',
      '0037_x_account_read_leases',
      '0038_post_metrics_cadence',
      '0039_metrics_read_budgets',
      '0040_analytics_refresh_windows',
      '0041_account_stats_reads',
      '0042_context_source_tokens',
      '0043_context_oauth_states',
      '0048_research_caches',
      '0051_inbox_refresh_state',
    ]);
  });

  test('a number used by two slices stops the start, naming both slices and keys and the next free number', () => {
    const error = conflictOf(() => collectMigrations([...slices, slice('notes', '0006_notes')]));
    expect(error.message).toBe(
      'Migration number 0006 is used twice: "0006_slot_claims" (slice "post-groups") and "0006_notes" (slice "notes"); give the newer one the next free number, 0052',
    );
  });

  test('a key declared twice stops the start, naming both slices', () => {
    const error = conflictOf(() => collectMigrations([slice('a', '0001_x'), slice('b', '0001_x')]));
    expect(error.message).toBe('Migration "0001_x" is declared twice: by slice "a" and by slice "b"');
  });

  test('the historic 0007 pair is the only reuse allowed: a third 0007 is refused', () => {
    expect(Object.keys(collectMigrations(slices))).toContain('0007_social_account_tokens');
    const error = conflictOf(() => collectMigrations([...slices, slice('notes', '0007_notes')]));
    expect(error.message).toContain(
      'Migration number 0007 is used twice: "0007_sandbox" (slice "social-accounts")',
    );
    expect(error.message).toContain('"0007_notes" (slice "notes")');
    // The same two names under another number, or without the allow-list, are refused too.
    expect(() =>
      collectMigrations([slice('a', '0007_sandbox'), slice('b', '0007_social_account_tokens')], []),
    ).toThrow(SliceConflict);
    expect(() =>
      collectMigrations([slice('a', '0001_sandbox'), slice('b', '0001_social_account_tokens')]),
    ).toThrow(/Migration number 0001 is used twice/);
  });

  test('names are <4-digit number>_<lower_case_name>, and a slice lists its own in order', () => {
    expect(conflictOf(() => collectMigrations([slice('notes', '17_notes')])).message).toBe(
      'Slice "notes": migration "17_notes" must be named <4-digit number>_<lower_case_name>, e.g. "0001_notes"',
    );
    expect(conflictOf(() => collectMigrations([slice('notes', '0021_b', '0020_a')])).message).toBe(
      `Slice "notes" lists migration "0020_a" after "0021_b": list a slice's migrations in number order`,
    );
  });

  test('the collected migrations are in number order whatever the slice order', () => {
    const collected = collectMigrations([slice('late', '0030_c'), slice('early', '0010_a', '0020_b')]);
    expect(Object.keys(collected)).toEqual(['0010_a', '0020_b', '0030_c']);
  });

  test('createRuntime stops before it touches a database', async () => {
    // An unreachable database: had the check not stopped the start, the error would be a connection error.
    const env = loadEnv({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', LOG_LEVEL: 'silent' });
    await expect(
      createRuntime({
        env,
        logger: createLogger({ level: 'silent' }),
        mode: 'cli',
        slices: [...slices, slice('notes', '0010_notes')],
      }),
    ).rejects.toThrow(
      'Migration number 0010 is used twice: "0010_publishing_lease" (slice "publishing") and "0010_notes" (slice "notes")',
    );
  });
});

describe('slices fit together', () => {
  test("the service's slices compose", () => {
    const composed = composeSlices(slices);
    expect(composed.projections.map((p) => p.name)).toEqual([
      'workspaces',
      'users',
      'invitations',
      'tags',
      'post_groups',
      'media',
      'brand_profile_status',
      'brand_preference_signals',
      'scheduling_profiles',
      'strategies',
      'thoughts',
      'context_library',
      'launch_kits',
      'dm_conversations',
      'inbox_items',
      'engagement_auto_refresh',
      'inspiration',
      'social_accounts',
      'post_metrics',
      'account_audience',
      'x_account_analytics',
      'performance',
      'x_automation',
      'notifications',
      'billing_subscriptions',
      'billing_history',
      'credits',
      'agent_runs',
    ]);
    expect(composed.processManagers.map((p) => p.name)).toEqual([
      'account-removal',
      'post-metrics-schedule',
      'account-stats-schedule',
      'billing-trial-start',
      'credit-periods',
      'assistant-connections-end',
    ]);
  });

  test('a slice name or a projection declared twice stops the start', () => {
    expect(conflictOf(() => composeSlices([...slices, { name: 'tags' }])).message).toBe(
      'Slice "tags" is declared twice',
    );
    expect(
      conflictOf(() => composeSlices([...slices, { name: 'again', projections: [workspacesProjection] }]))
        .message,
    ).toBe('Projection "workspaces" is declared twice: by slice "workspaces" and by slice "again"');
  });

  test("the environment schema is the slices' settings: a new slice's variables are parsed with their checks", () => {
    const notes = defineSettings({ NOTES_LIMIT: z.coerce.number().int().min(1).default(10) });
    // Two slices may list one fragment (one reads the other's variable): it counts once.
    const withNotes = [
      ...slices,
      defineSlice({ name: 'notes', settings: [notes] }),
      defineSlice({ name: 'note-digest', settings: [notes] }),
    ];
    const schema = composeSettings(settingsOfSlices(withNotes));
    expect(parseSettings(schema, {}).NOTES_LIMIT).toBe(10);
    expect(() => parseSettings(schema, { NOTES_LIMIT: '0' })).toThrow(/NOTES_LIMIT: .* \(got "0"\)/);
    // The service's own schema (api/slices.ts) does not have the variable.
    expect(() => loadEnv({ NOTES_LIMIT: '0' })).not.toThrow();
    const again = defineSettings({ NOTES_LIMIT: z.string() });
    expect(() =>
      composeSettings(settingsOfSlices([...withNotes, defineSlice({ name: 'other', settings: [again] })])),
    ).toThrow('NOTES_LIMIT is declared by two settings fragments');
  });
});

describe('what slices provide and require', () => {
  const first = service<string>()('first');
  const second = service<string>()('second');
  const tips = extensionPoint<string>('tips');

  test("the service's providers are built after what they require", () => {
    const order = composeSlices(slices).providers.map((p) => p.provider.service.name);
    const before = (a: string, b: string) => expect(order.indexOf(a)).toBeLessThan(order.indexOf(b));
    before('media', 'brand');
    before('renderer', 'brand');
    before('billing', 'visuals');
    before('brand', 'visuals');
    before('brand', 'brand context');
    before('ai jobs', 'brand profile');
    before('mailer', 'invitations');
    expect(new Set(order).size).toBe(order.length);
  });

  test('a service required but provided by no slice stops the start, naming the slice and the service', () => {
    expect(() => composeSlices([...slices, { name: 'notes', requires: [first] }])).toThrow(
      new ProviderConflict('Slice "notes" requires the "first" service, which no slice provides'),
    );
    const needy = provide(second, { requires: [first], build: () => 'b' });
    expect(() => composeSlices([...slices, { name: 'notes', provides: [needy] }])).toThrow(
      'Slice "notes" (its "second" provider) requires the "first" service, which no slice provides',
    );
  });

  test('a service provided twice, or providers requiring each other, stop the start naming the slices', () => {
    const a = provide(first, { build: () => 'a' });
    expect(() =>
      composeSlices([...slices, { name: 'one', provides: [a] }, { name: 'two', provides: [a] }]),
    ).toThrow('The "first" service is provided twice: by slice "one" and by slice "two"');
    const loop = [
      { name: 'one', provides: [provide(first, { requires: [second], build: () => 'a' })] },
      { name: 'two', provides: [provide(second, { requires: [first], build: () => 'b' })] },
    ];
    expect(() => composeSlices([...slices, ...loop])).toThrow(
      'Services require each other: "first" (slice "one") -> "second" (slice "two") -> "first" (slice "one")',
    );
  });

  test("the runtime builds each provider once in order, hands it to slices that require it, stops them in reverse; extension points gather every slice's entries", async () => {
    const events: string[] = [];
    const notes: Slice = {
      name: 'notes',
      contributes: [contribute(tips, 'from notes', 'from notes again')],
      // Listed in the other order: the runtime orders them by what they require.
      provides: [
        provide(second, {
          requires: [first],
          build: (ctx) => {
            events.push('build second');
            return `${ctx.use(first)}+second`;
          },
          stop: async () => void events.push('stop second'),
        }),
        provide(first, {
          build: () => {
            events.push('build first');
            return 'first';
          },
          stop: async () => void events.push('stop first'),
        }),
      ],
    };
    const reader: Slice = {
      name: 'reader',
      requires: [second],
      contributes: [contribute(tips, 'from reader')],
      routes: (ctx) => {
        events.push(`reader sees ${ctx.use(second)}`);
        // Every slice's entries for a point, in slice order (the service's own slices add none to this one).
        expect(ctx.contributions(tips)).toEqual(['from notes', 'from notes again', 'from reader']);
        expect(ctx.contributions(onboardingProbes)).toHaveLength(5);
        expect(() => ctx.use(first)).toThrow('Slice "reader" uses the "first" service without requiring it');
        return [];
      },
    };
    const database = await createTestDatabase();
    const runtime = await createRuntime({
      env: loadEnv({ LOG_LEVEL: 'silent', DATABASE_URL: database.url }),
      logger: createLogger({ level: 'silent' }),
      mode: 'cli',
      slices: [...slices, notes, reader],
    });
    await runtime.stop();
    await database.drop();
    expect(events).toEqual([
      'build first',
      'build second',
      'reader sees first+second',
      'stop second',
      'stop first',
    ]);
  });
});
