// Gathers a workspace's writing context (domain/ai/writing.ts) for the AI paths that write posts: its name, the
// public brand context (the brand-profile slice's reader, which leaves private and restricted knowledge out), the
// strategy's pillars and priorities, its active thoughts and its recent top posts. Reads run side by side.
import type { Kysely } from 'kysely';
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import type { ThoughtBrief, WritingContext } from '../../domain/ai/writing.js';
import { rankedPosts } from '../../projections/performance/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { strategyGroundingOf } from '../strategy/strategy-use-cases.js';

export interface WritingContextDeps {
  commands: Pick<CommandDeps, 'eventStore'>;
  readModels: Kysely<ReadModels>;
  brandContext: BrandContextReader;
  /** The workspace's active thoughts, newest first (the thoughts slice's read model). */
  activeThoughts: (orgId: string, limit: number) => Promise<ThoughtBrief[]>;
}

const topPostWindowDays = 30;

export async function writingContextOf(
  deps: WritingContextDeps,
  orgId: string,
  now: Date,
): Promise<WritingContext> {
  const to = now.getTime();
  const [workspace, brand, strategy, thoughts, top] = await Promise.all([
    deps.readModels.selectFrom('workspaces').select('name').where('id', '=', orgId).executeTakeFirst(),
    deps.brandContext.forOrg(orgId),
    strategyGroundingOf(deps.commands, orgId, now.toISOString()),
    deps.activeThoughts(orgId, 10),
    rankedPosts(deps.readModels, {
      orgId,
      from: to - topPostWindowDays * 86_400_000,
      to,
      limit: 3,
      offset: 0,
    }),
  ]);
  return {
    workspaceName: workspace?.name ?? 'This workspace',
    brand,
    pillars: strategy.pillars,
    priorities: strategy.priorities,
    thoughts,
    topPosts: top.items
      .filter((p) => p.contentText.length > 0)
      .map((p) => ({ platform: p.platform, text: p.contentText, engagement: p.engagement })),
  };
}
