// A published post's engagement as read from its platform: one stream per post (`postMetrics-<postId>`), one
// `PostMetricsFetched` per reading (lifetime totals at that time; the latest one is the post's numbers).
// Where the numbers come from and when they are read is the metrics process's business (processes/analytics).
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields, type ErrorDetail } from '../shared/errors.js';
import {
  postMetricsEventCodec,
  type MetricsReading,
  type MetricsSubject,
  type PostMetricsEvent,
} from './event-codec.js';

export type { MetricsReading, MetricsSubject, PostMetricsEvent } from './event-codec.js';

export const postMetricsCategory = 'postMetrics';

export type PostMetricsCommand = {
  type: 'RecordPostMetrics';
  metrics: MetricsReading;
  /** When the platform was read (ISO); a reading not newer than the last one decides nothing. */
  fetchedAt: string;
} & MetricsSubject;

export type PostMetricsState =
  | { kind: 'untracked' }
  | {
      kind: 'tracked';
      subject: MetricsSubject;
      fetchCount: number;
      lastFetchedAt: string;
      latest: MetricsReading;
      engagement: number;
    };

export function engagementOf(m: MetricsReading): number {
  return m.likes + m.reposts + m.replies + m.quotes + (m.bookmarks ?? 0);
}

const counts = ['likes', 'reposts', 'replies', 'quotes'] as const;
const optionalCounts = ['bookmarks', 'impressions'] as const;

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function validate(command: PostMetricsCommand): void {
  const problems: ErrorDetail[] = [];
  for (const key of counts)
    if (!isCount(command.metrics[key]))
      problems.push({ path: `metrics.${key}`, message: 'a count, 0 or more' });
  for (const key of optionalCounts)
    if (command.metrics[key] !== null && !isCount(command.metrics[key]))
      problems.push({ path: `metrics.${key}`, message: 'a count, 0 or more, or null' });
  for (const key of ['fetchedAt', 'publishedAt'] as const)
    if (!Number.isFinite(Date.parse(command[key])))
      problems.push({ path: key, message: 'an ISO 8601 date and time' });
  if (problems.length > 0) throw new InvalidFields('Invalid post metrics', problems);
}

export const postMetricsDecider: Decider<PostMetricsState, PostMetricsCommand, PostMetricsEvent> = {
  initialState: { kind: 'untracked' },
  codec: postMetricsEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'RecordPostMetrics': {
        validate(command);
        if (state.kind === 'tracked') {
          if (state.subject.orgId !== command.orgId || state.subject.postId !== command.postId)
            throw new Conflict('These metrics belong to another post', 'post_metrics_mismatch');
          // The same reading again (a retried fetch), or an older one arriving late: the newest already counts.
          if (Date.parse(command.fetchedAt) <= Date.parse(state.lastFetchedAt)) return [];
        }
        const { type: _type, metrics, fetchedAt, ...subject } = command;
        return [
          {
            type: 'PostMetricsFetched',
            data: {
              ...subject,
              metrics: { ...metrics },
              engagement: engagementOf(metrics),
              fetchNumber: state.kind === 'tracked' ? state.fetchCount + 1 : 1,
              fetchedAt,
            },
          },
        ];
      }
      default:
        return assertNever(command.type);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'PostMetricsFetched': {
        const { metrics, engagement, fetchNumber, fetchedAt, ...subject } = event.data;
        return {
          kind: 'tracked',
          subject,
          fetchCount: fetchNumber,
          lastFetchedAt: fetchedAt,
          latest: metrics,
          engagement,
        };
      }
      default:
        return assertNever(event.type);
    }
  },
};
