// Gathers a workspace's writing context (domain/ai/writing.ts) for the AI paths that write posts: its name, the
// public brand context (the brand-profile slice's reader, which leaves private and restricted knowledge out), the
// strategy's pillars and priorities, its active thoughts, its recent top posts and the context library's enabled
// public documents (never private, restricted or disabled ones). Reads run side by side.
import type { Kysely } from 'kysely';
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import { documentPromptLimits, type WritingContext } from '../../domain/ai/writing.js';
import { rankedPosts } from '../../projections/performance/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import { activeThoughtBriefs } from '../../projections/thoughts/queries.js';
import { publicContextDocuments } from '../../projections/context/queries.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { strategyGroundingOf } from '../strategy/strategy-use-cases.js';

export interface WritingContextDeps {
  commands: Pick<CommandDeps, 'eventStore'>;
  readModels: Kysely<ReadModels>;
  brandContext: BrandContextReader;
}

const thoughtsGiven = 10;

const topPostWindowDays = 30;

/**
 * The context every post writer is grounded in. Active thoughts always feed it (archived ones never do);
 * `excludeThought` leaves out the thought a draft is written from, which is its subject rather than context.
 */
export async function writingContextOf(
  deps: WritingContextDeps,
  orgId: string,
  now: Date,
  options: { excludeThought?: string } = {},
): Promise<WritingContext> {
  const to = now.getTime();
  const [workspace, brand, strategy, thoughts, top, documents] = await Promise.all([
    deps.readModels.selectFrom('workspaces').select('name').where('id', '=', orgId).executeTakeFirst(),
    deps.brandContext.forOrg(orgId),
    strategyGroundingOf(deps.commands, orgId, now.toISOString()),
    activeThoughtBriefs(deps.readModels, orgId, thoughtsGiven + 1),
    rankedPosts(deps.readModels, {
      orgId,
      from: to - topPostWindowDays * 86_400_000,
      to,
      limit: 3,
      offset: 0,
    }),
    publicContextDocuments(deps.readModels, orgId, documentPromptLimits.documents),
  ]);
  return {
    workspaceName: workspace?.name ?? 'This workspace',
    brand,
    pillars: strategy.pillars,
    priorities: strategy.priorities,
    thoughts: thoughts.filter((t) => t.id !== options.excludeThought).slice(0, thoughtsGiven),
    topPosts: top.items
      .filter((p) => p.contentText.length > 0)
      .map((p) => ({ platform: p.platform, text: p.contentText, engagement: p.engagement })),
    documents,
  };
}
