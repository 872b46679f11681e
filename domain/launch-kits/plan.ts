// The day-by-day launch plan (spec part 2, "Launch kit"): a fixed template of steps from a week before the launch
// date to three days after it (docs/decisions.md, "Launch kits (issue 29)"), laid out on the calendar of the
// workspace's time zone. Each timed step carries a suggested instant (`scheduledForUtc`); nothing is scheduled.
//
// Times of day:
// - posts (X, LinkedIn, Reddit) take the start of the best posting window of the workspace's scheduling profile for
//   the platform on that weekday (highest weight, then earliest); on a day no window covers (a weekend when the
//   profile leaves weekends out) the platform's best window of any day; reddit uses the profile's windows for
//   platforms without editable windows;
// - the Product Hunt launch goes live at 00:01 America/Los_Angeles on the launch date (Product Hunt's day starts at
//   midnight Pacific), and the Show HN post is suggested for 08:00 America/New_York (US weekday mornings): these
//   instants are shown on the workspace's clocks, so their local date may be the day before or after;
// - tasks are for the whole day: time and scheduledForUtc null.
//
// Local times and DST: a local time is turned into an instant with Luxon's zone data. A time the clocks skip (the
// gap when they go forward) moves forward by the length of the gap (02:30 on a New York spring-forward day is
// 03:30 EDT); a time the clocks show twice (when they go back) takes its first occurrence (the earlier instant).
// A step's `date` and `time` are always what the clocks of the zone show at its `scheduledForUtc`, and its `day`
// is the number of calendar days from the launch date to its `date`.
import { DateTime } from 'luxon';
import { windowsFor } from '../scheduling/profile.js';
import { addLocalDays, daysBetween, localToUtc, minutesOfDay, weekdayOf } from '../scheduling/time.js';
import type { PostingWindow, SchedulingProfile } from '../scheduling/types.js';
import type { Platform } from '../shared/platforms.js';
import type { LaunchChannel, PlannedStep, StepKind } from './event-codec.js';

export const productHuntLaunch = { time: '00:01', zone: 'America/Los_Angeles' } as const;
export const showHnSuggestion = { time: '08:00', zone: 'America/New_York' } as const;
/** When no posting window applies at all (a profile with every window weighted 0). */
export const fallbackPostTime = '09:00';

/** The social channels launch posts are drafted for, with their platform. */
export const socialChannels = ['x', 'linkedin', 'reddit'] as const satisfies readonly LaunchChannel[];
export type SocialChannel = (typeof socialChannels)[number];
export const isSocialChannel = (c: LaunchChannel): c is SocialChannel =>
  (socialChannels as readonly string[]).includes(c);

export type PostMoment = 'teaser' | 'launch' | 'follow_up';

/** A post the kit drafts into review: which channel, when in the launch, and for Reddit which subreddit. */
export interface PostSlot {
  /** Stable within a kit: `x.teaser`, `reddit.launch.0`. */
  key: string;
  channel: SocialChannel;
  platform: Platform;
  moment: PostMoment;
  subreddit: string | null;
}

export interface PlanStep extends Omit<PlannedStep, 'groupId'> {
  /** The template entry it came from (`assets`, `x.teaser`, …): what the writer's task details are keyed by. */
  key: string;
  post: PostSlot | null;
}

export interface LaunchPlanInput {
  launchDate: string;
  timezone: string;
  channels: readonly LaunchChannel[];
  subreddits: readonly string[];
  profile: SchedulingProfile;
}

type Timing =
  { at: 'window'; platform: Platform } | { at: 'fixed'; time: string; zone: string } | { at: 'day' };

interface TemplateStep {
  key: string;
  day: number;
  kind: StepKind;
  channel: LaunchChannel | null;
  title: string;
  detail: string;
  timing: Timing;
  post?: PostSlot;
}

const post = (
  channel: SocialChannel,
  moment: PostMoment,
  day: number,
  title: string,
  detail: string,
  subreddit: { name: string; index: number } | null = null,
): TemplateStep => {
  const key = subreddit ? `${channel}.${moment}.${subreddit.index}` : `${channel}.${moment}`;
  return {
    key,
    day,
    kind: 'post',
    channel,
    title,
    detail,
    timing: { at: 'window', platform: channel },
    post: { key, channel, platform: channel, moment, subreddit: subreddit?.name ?? null },
  };
};

/** The template, in the order of the day; entries of channels not chosen are left out. */
function template(input: LaunchPlanInput): TemplateStep[] {
  const has = (c: LaunchChannel) => input.channels.includes(c);
  const steps: (TemplateStep | false)[] = [
    {
      key: 'assets',
      day: -7,
      kind: 'task',
      channel: null,
      title: 'Prepare the launch assets',
      detail:
        'Screenshots, a short demo video and gallery images; check that the landing page says in one line what the product does and loads fast.',
      timing: { at: 'day' },
    },
    has('product_hunt') && {
      key: 'product_hunt.listing',
      day: -7,
      kind: 'listing',
      channel: 'product_hunt',
      title: 'Create the Product Hunt listing',
      detail:
        'Create the listing from the name, tagline, description, topics and gallery ideas of this kit and schedule it on Product Hunt for launch day.',
      timing: { at: 'day' },
    },
    has('x') &&
      post(
        'x',
        'teaser',
        -5,
        'Teaser on X',
        'A teaser: the problem and that something is coming on launch day.',
      ),
    has('linkedin') &&
      post(
        'linkedin',
        'teaser',
        -4,
        'Teaser on LinkedIn',
        'A teaser for your network: why you built it and the launch date.',
      ),
    {
      key: 'supporters',
      day: -3,
      kind: 'task',
      channel: null,
      title: 'Line up supporters',
      detail:
        'Tell customers, friends and the communities you belong to the launch date and where to find it; ask for honest feedback, never for upvotes.',
      timing: { at: 'day' },
    },
    has('hacker_news') && {
      key: 'hacker_news.prepare',
      day: -1,
      kind: 'task',
      channel: 'hacker_news',
      title: 'Prepare the Show HN post',
      detail:
        'Read the title and text of this kit once more, make the demo usable without signing up if you can, and keep the launch day free to answer questions.',
      timing: { at: 'day' },
    },
    has('product_hunt') && {
      key: 'product_hunt.live',
      day: 0,
      kind: 'listing',
      channel: 'product_hunt',
      title: 'Product Hunt launch goes live',
      detail:
        "The listing goes live at 12:01 a.m. Pacific time. Post the maker's first comment at once and reply to every comment through the day.",
      timing: { at: 'fixed', ...productHuntLaunch },
    },
    has('hacker_news') && {
      key: 'hacker_news.submit',
      day: 0,
      kind: 'listing',
      channel: 'hacker_news',
      title: 'Submit the Show HN post',
      detail:
        'Submit the Show HN title and text of this kit on a US weekday morning and stay for the discussion; never ask for upvotes.',
      timing: { at: 'fixed', ...showHnSuggestion },
    },
    has('x') && post('x', 'launch', 0, 'Launch post on X', 'The launch announcement with the link.'),
    has('linkedin') &&
      post(
        'linkedin',
        'launch',
        0,
        'Launch post on LinkedIn',
        'The launch story for your network with the link.',
      ),
    ...(has('reddit')
      ? input.subreddits.map((name, index) =>
          post(
            'reddit',
            'launch',
            0,
            `Share on ${name.startsWith('r/') ? name : `r/${name}`}`,
            'Check the subreddit rules on self-promotion first; answer questions in the thread.',
            { name, index },
          ),
        )
      : []),
    {
      key: 'replies',
      day: 0,
      kind: 'task',
      channel: null,
      title: 'Answer every comment',
      detail:
        'Reply on every channel of the launch through the day; thank people by name and note the feedback.',
      timing: { at: 'day' },
    },
    has('x') &&
      post(
        'x',
        'follow_up',
        1,
        'Thank-you post on X',
        'Thank the people who showed up and share what you heard.',
      ),
    has('linkedin') &&
      post(
        'linkedin',
        'follow_up',
        2,
        'What we learned, on LinkedIn',
        'A short recap of the launch: what people asked for and what comes next.',
      ),
    {
      key: 'recap',
      day: 3,
      kind: 'task',
      channel: null,
      title: 'Follow up and write the recap',
      detail:
        'Answer open questions, follow up with everyone who asked for access, and write down what worked for the next launch.',
      timing: { at: 'day' },
    },
  ];
  return steps.filter((s): s is TemplateStep => s !== false);
}

const better = (a: PostingWindow, b: PostingWindow) =>
  a.weight !== b.weight ? a.weight > b.weight : a.start < b.start;

function bestOf(windows: readonly PostingWindow[]): PostingWindow | null {
  let best: PostingWindow | null = null;
  for (const w of windows) if (w.weight > 0 && (best === null || better(w, best))) best = w;
  return best;
}

/**
 * The suggested local time of a post on `platform` on `date`: the start of the best window of the profile that
 * covers the date's weekday; else the platform's best window of any day (weekends left out still get a time);
 * else 09:00.
 */
export function suggestedPostTime(profile: SchedulingProfile, platform: Platform, date: string): string {
  const weekday = weekdayOf(date);
  const applying = windowsFor(profile, platform);
  const all = windowsFor({ ...profile, includeWeekends: true }, platform);
  return (
    bestOf(applying.filter((w) => w.days.includes(weekday)))?.start ?? bestOf(all)?.start ?? fallbackPostTime
  );
}

/**
 * The instant the clocks of `zone` show `time` on `date`: a skipped time moves forward by the gap, a repeated time
 * takes its first occurrence (see the head of this file).
 */
export function localInstant(date: string, time: string, zone: string): string {
  // Scheduling's conversion: the instant, or the earlier of two; null for a time the clocks skip.
  const exact = localToUtc(date, minutesOfDay(time), zone);
  if (exact !== null) return exact;
  // Skipped: Luxon reads the wall time with the offset before the change, i.e. later by the gap.
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  const dt = DateTime.fromObject({ year, month, day, hour, minute }, { zone });
  if (!dt.isValid)
    throw new RangeError(`No instant for ${date} ${time} in ${zone}: ${dt.invalidExplanation}`);
  return dt.toUTC().toISO();
}

/** Where an instant falls on the clocks of `zone`: local date and `HH:MM`. */
function onClocks(iso: string, zone: string): { date: string; time: string } {
  const dt = DateTime.fromISO(iso, { zone });
  return { date: dt.toISODate()!, time: dt.toFormat('HH:mm') };
}

/** The plan: every step with its date, time and suggested instant in the kit's zone, in the order of the day. */
export function launchPlan(input: LaunchPlanInput): PlanStep[] {
  const laid = template(input).map((t, order) => {
    let date = addLocalDays(input.launchDate, t.day);
    let time: string | null = null;
    let scheduledForUtc: string | null = null;
    if (t.timing.at !== 'day') {
      scheduledForUtc =
        t.timing.at === 'window'
          ? localInstant(date, suggestedPostTime(input.profile, t.timing.platform, date), input.timezone)
          : localInstant(addLocalDays(input.launchDate, t.day), t.timing.time, t.timing.zone);
      ({ date, time } = onClocks(scheduledForUtc, input.timezone));
    }
    const step: PlanStep = {
      key: t.key,
      id: '',
      day: daysBetween(input.launchDate, date),
      date,
      time,
      scheduledForUtc,
      kind: t.kind,
      channel: t.channel,
      title: t.title,
      detail: t.detail,
      platform: t.post?.platform ?? null,
      post: t.post ?? null,
    };
    return { step, order };
  });
  laid.sort(
    (a, b) =>
      a.step.date.localeCompare(b.step.date) ||
      // Tasks of the whole day first, then timed steps by instant, then the template's order.
      Number(a.step.scheduledForUtc !== null) - Number(b.step.scheduledForUtc !== null) ||
      (a.step.scheduledForUtc ?? '').localeCompare(b.step.scheduledForUtc ?? '') ||
      a.order - b.order,
  );
  return laid.map(({ step }, i) => ({ ...step, id: `step-${i + 1}` }));
}
