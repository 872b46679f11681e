// A published post's engagement as read from its platform: one stream per post (`postMetrics-<postId>`), one
// `PostMetricsFetched` per reading (lifetime totals at that time; the latest one is the post's numbers).
// Where the numbers come from and when they are read is the metrics process's business (processes/analytics).
import type { Platform } from '../shared/platforms.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields, type ErrorDetail } from '../shared/errors.js';
import { postMetricsEventCodec } from './event-codec.js';

export const postMetricsCategory = 'postMetrics';

/**
 * The numbers a platform gave (the connector port's PostMetricsReading): counts it does not have are 0,
 * `bookmarks` and `impressions` null when it does not say.
 */
export interface MetricsReading {
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  bookmarks: number | null;
  impressions: number | null;
}

/** The post a reading is of, as it was published. */
export interface MetricsSubject {
  orgId: string;
  postId: string;
  groupId: string;
  platform: Platform;
  /** The account it was published with. */
  socialAccountId: string;
  externalId: string;
  /** When it was published (ISO). */
  publishedAt: string;
  /** The group's content type (strategy link), when it has one. */
  contentType: string | null;
}

export type PostMetricsCommand = {
  type: 'RecordPostMetrics';
  metrics: MetricsReading;
  /** When the platform was read (ISO); a reading not newer than the last one decides nothing. */
  fetchedAt: string;
} & MetricsSubject;

export type PostMetricsEvent = {
  type: 'PostMetricsFetched';
  data: MetricsSubject & {
    metrics: MetricsReading;
    /** likes + reposts + replies + quotes + (bookmarks ?? 0). */
    engagement: number;
    /** 1 for the post's first reading, then 2, 3, … */
    fetchNumber: number;
    fetchedAt: string;
  };
};

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
