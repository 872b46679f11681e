// Post metrics commands: record a reading of a published post's numbers, and load what is recorded.
// One stream per post, `postMetrics-<postId>` (domain/analytics/post-metrics.ts).
import {
  postMetricsCategory,
  postMetricsDecider,
  type MetricsReading,
  type MetricsSubject,
  type PostMetricsEvent,
  type PostMetricsState,
} from '../../domain/analytics/post-metrics.js';
import { streamName, type Checkpoint } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
} from '../shared/command-handler.js';

export const postMetricsStream = (postId: string) => streamName(postMetricsCategory, postId);

export async function loadPostMetrics(
  deps: Pick<CommandDeps, 'eventStore'>,
  postId: string,
): Promise<{ state: PostMetricsState; revision: number | null }> {
  const { state, revision } = await loadAggregate(
    deps.eventStore,
    postMetricsStream(postId),
    postMetricsDecider,
  );
  return { state, revision };
}

export interface RecordedMetrics {
  /** The event appended; null when the reading decided nothing (the same one again, or an older one). */
  event: PostMetricsEvent | null;
  state: PostMetricsState;
  position: Checkpoint | null;
}

/**
 * Records one reading (`PostMetricsFetched`). `awaitReadModels: false` skips the read-your-writes wait (the
 * background fetcher has nobody waiting for the read model).
 */
export async function recordPostMetrics(
  deps: CommandDeps,
  input: MetricsSubject & { metrics: MetricsReading; fetchedAt: string },
  metadata: CommandMetadata,
  options: {
    awaitReadModels?: boolean;
    loaded?: { state: PostMetricsState; revision: number | null };
  } = {},
): Promise<RecordedMetrics> {
  const outcome = await handleCommand(deps, {
    stream: postMetricsStream(input.postId),
    decider: postMetricsDecider,
    command: { type: 'RecordPostMetrics', ...input },
    metadata: { ...metadata, orgId: input.orgId },
    ...(options.loaded ? { loaded: options.loaded } : {}),
    ...(options.awaitReadModels === false ? { awaitReadModels: false } : {}),
  });
  return { event: outcome.events[0] ?? null, state: outcome.state, position: outcome.position };
}
