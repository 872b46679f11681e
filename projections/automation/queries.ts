// Reads for the X automation: the rules as saved, the runs' actions newest first, the workspace's published X
// posts with their latest metrics (what a run evaluates), and the workspaces the nightly sweep visits.
import { sql, type Kysely } from 'kysely';
import type { AutomationKind } from '../../domain/automation/event-codec.js';
import type { XPostCandidate } from '../../domain/automation/planner.js';
import {
  noRules,
  type AutomationActionStatus,
  type AutomationActionView,
  type XAutomationRulesView,
} from '../../domain/automation/views.js';
import { mayPublishSql } from '../billing/subscriptions-projection.js';
import type { ReadModels } from '../read-models.js';
import type { XAutomationTables } from './x-automation-projection.js';

const tablesOf = (db: Kysely<ReadModels>) => db.withTables<XAutomationTables>();

/** jsonb arrives parsed from the pool; as text from places that read it raw. */
function json<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

const iso = (value: string | Date) => new Date(value).toISOString();

/** The rules resource; every field null for a workspace that never saved any. */
export async function xAutomationRulesOf(
  db: Kysely<ReadModels>,
  orgId: string,
): Promise<XAutomationRulesView> {
  const row = await tablesOf(db)
    .selectFrom('x_automation_rules')
    .select(['auto_repost', 'auto_delete', 'updated_at', 'updated_by'])
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  if (!row) return noRules;
  return {
    autoRepost: json(row.auto_repost),
    autoDelete: json(row.auto_delete),
    updatedAt: row.updated_at === null ? null : iso(row.updated_at),
    updatedBy: row.updated_by,
  };
}

/** The workspace's automation actions, newest first. */
export async function listXAutomationActions(
  db: Kysely<ReadModels>,
  orgId: string,
  limit: number,
): Promise<AutomationActionView[]> {
  const rows = await tablesOf(db)
    .selectFrom('x_automation_actions')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind as AutomationKind,
    socialAccountId: r.social_account_id,
    sourcePostId: r.source_post_id,
    externalTweetId: r.external_tweet_id,
    status: r.status as AutomationActionStatus,
    reason: r.reason,
    dryRun: r.dry_run,
    error: r.error,
    createdAt: iso(r.created_at),
  }));
}

/**
 * The workspace's published X posts published since `since`, with their latest reading: the posts a run
 * evaluates. A post never read has no numbers to judge it by and is left out.
 */
export async function xPostCandidates(
  db: Kysely<ReadModels>,
  orgId: string,
  since: string,
): Promise<XPostCandidate[]> {
  const { rows } = await sql<{
    post_id: string;
    social_account_id: string;
    external_id: string;
    published_at: string | Date;
    likes: string;
    replies: string;
    impressions: string | null;
    engagement: string;
    fetched_at: string | Date;
  }>`
    select m.post_id, m.social_account_id, m.external_id, m.published_at, m.likes, m.replies, m.impressions,
      m.engagement, m.fetched_at
    from post_metrics m
    join posts p on p.id = m.post_id and p.org_id = m.org_id
    where m.org_id = ${orgId} and m.platform = 'x' and m.published_at >= ${since}
      and p.platform = 'x' and p.status = 'published'
    order by m.published_at desc`.execute(db);
  return rows.map((r) => ({
    postId: r.post_id,
    socialAccountId: r.social_account_id,
    externalTweetId: r.external_id,
    publishedAt: iso(r.published_at),
    metricsFetchedAt: iso(r.fetched_at),
    likes: Number(r.likes),
    replies: Number(r.replies),
    impressions: r.impressions === null ? null : Number(r.impressions),
    engagement: Number(r.engagement),
  }));
}

export interface SweepCandidate {
  orgId: string;
  /** The last night a nightly run completed (the workspace's local date), or null. */
  lastNight: string | null;
}

/**
 * Workspaces with an enabled rule that the nightly sweep may act for at `now`: not deleted, and allowed to
 * publish (a read-only, overdue workspace or one without a usable subscription is left alone, as its
 * scheduled posts are).
 */
export async function workspacesToSweep(db: Kysely<ReadModels>, now: Date): Promise<SweepCandidate[]> {
  const at = now.toISOString();
  const { rows } = await sql<{ org_id: string; last_night: string | null }>`
    select r.org_id, r.last_night::text as last_night
    from x_automation_rules r
    where r.enabled
      and not exists (select 1 from workspaces w where w.id = r.org_id and w.status = 'deleted')
      and not exists (
        select 1 from billing_subscriptions s where s.org_id = r.org_id and not ${mayPublishSql('s', at)})
    order by r.org_id`.execute(db);
  return rows.map((r) => ({ orgId: r.org_id, lastNight: r.last_night }));
}
