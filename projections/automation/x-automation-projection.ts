// Read models of the X automation: each workspace's rules as saved (GET ORG/automation/x/rules, and which
// workspaces the nightly sweep visits) and every action runs decided (GET ORG/automation/x/runs, newest first).
// Idempotent: a rules row keeps the latest revision it folded, an action row is inserted once and only moves on
// from `planned` (in flight) to its outcome.
import { sql, type Generated, type JSONColumnType } from 'kysely';
import { xAutomationEventCodec } from '../../domain/automation/event-codec.js';
import type { AutoDeleteRule, AutoRepostRule } from '../../domain/automation/rules.js';
import { withWarnings } from '../../domain/automation/views.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

/** Types, not interfaces, so `withTables` takes them. */
export type XAutomationRulesTable = {
  org_id: string;
  revision: number;
  auto_repost: JSONColumnType<AutoRepostRule | null>;
  auto_delete: JSONColumnType<AutoDeleteRule | null>;
  updated_at: string | null;
  updated_by: string | null;
  /** Some rule is enabled: the nightly sweep visits the workspace. */
  enabled: boolean;
  /** The last night (the workspace's local date) a nightly run completed. */
  last_night: string | null;
};

export type XAutomationActionsTable = {
  id: string;
  org_id: string;
  run_id: string;
  kind: string;
  social_account_id: string | null;
  source_post_id: string | null;
  external_tweet_id: string | null;
  status: string;
  reason: string | null;
  dry_run: boolean;
  error: string | null;
  created_at: string;
  /** Log order, to keep actions decided in the same millisecond in order. */
  seq: Generated<string>;
};

export type XAutomationTables = {
  x_automation_rules: XAutomationRulesTable;
  x_automation_actions: XAutomationActionsTable;
};

export const xAutomationProjection = defineProjection({
  name: 'x_automation',
  version: 1,
  tables: ['x_automation_rules', 'x_automation_actions'],
  reads: [readsFrom(xAutomationEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.x_automation_rules (
        org_id uuid primary key,
        revision integer not null,
        auto_repost jsonb,
        auto_delete jsonb,
        updated_at timestamptz,
        updated_by text,
        enabled boolean not null,
        last_night date
      )`.execute(trx);
    await sql`create index on ${s}.x_automation_rules (org_id) where enabled`.execute(trx);
    await sql`
      create table ${s}.x_automation_actions (
        id uuid primary key,
        org_id uuid not null,
        run_id uuid not null,
        kind text not null,
        social_account_id uuid,
        source_post_id uuid,
        external_tweet_id text,
        status text not null,
        reason text,
        dry_run boolean not null,
        error text,
        created_at timestamptz not null,
        seq bigint generated always as identity
      )`.execute(trx);
    await sql`create index on ${s}.x_automation_actions (org_id, created_at desc, seq desc)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<XAutomationTables>().withSchema(schema);
    switch (event.type) {
      case 'XAutomationRulesUpdated': {
        const d = event.data;
        const row = {
          org_id: d.orgId,
          revision: event.revision,
          auto_repost: JSON.stringify(d.autoRepost),
          auto_delete: JSON.stringify(d.autoDelete),
          updated_at: d.updatedAt,
          updated_by: d.updatedBy,
          enabled: d.autoRepost?.enabled === true || d.autoDelete?.enabled === true,
        };
        const { org_id: _key, ...changes } = row;
        await db
          .insertInto('x_automation_rules')
          .values({ ...row, last_night: null })
          .onConflict((oc) =>
            oc
              .column('org_id')
              .doUpdateSet(changes)
              .where('x_automation_rules.revision', '<', event.revision),
          )
          .execute();
        return;
      }
      case 'XAutomationRunStarted':
        return;
      case 'XAutomationActionRecorded':
      case 'XAutomationActionStarted': {
        const d = event.data;
        const recorded = event.type === 'XAutomationActionRecorded' ? event.data : null;
        await db
          .insertInto('x_automation_actions')
          .values({
            id: d.actionId,
            org_id: d.orgId,
            run_id: d.runId,
            kind: d.kind,
            social_account_id: d.evidence.socialAccountId,
            source_post_id: d.evidence.postId,
            external_tweet_id: d.evidence.externalTweetId,
            // A live action in flight reads `planned` until X answers.
            status: recorded ? recorded.status : 'planned',
            reason: d.reason,
            dry_run: recorded ? recorded.dryRun : false,
            error: null,
            created_at: d.at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'XAutomationActionSucceeded':
      case 'XAutomationActionFailed': {
        const d = event.data;
        const failed = event.type === 'XAutomationActionFailed' ? event.data : null;
        const note = event.type === 'XAutomationActionSucceeded' ? withWarnings('', event.data.warnings) : '';
        await db
          .updateTable('x_automation_actions')
          .set((eb) => ({
            status: failed ? 'failed' : 'succeeded',
            error: failed ? failed.error : null,
            // What X said besides succeeding ("already gone from X") follows the reason.
            ...(note ? { reason: sql<string>`coalesce(${eb.ref('reason')}, '') || ${note}` } : {}),
          }))
          .where('id', '=', d.actionId)
          .where('status', '=', 'planned')
          .where('dry_run', '=', false)
          .execute();
        return;
      }
      case 'XAutomationRunCompleted': {
        const d = event.data;
        if (d.trigger !== 'nightly' || !d.localDate) return;
        await db
          .updateTable('x_automation_rules')
          .set({ last_night: d.localDate })
          .where('org_id', '=', d.orgId)
          .where((eb) => eb.or([eb('last_night', 'is', null), eb('last_night', '<', d.localDate!)]))
          .execute();
        return;
      }
      default: {
        const never: never = event;
        throw new Error(`Unexpected event ${JSON.stringify(never)}`);
      }
    }
  },
});
