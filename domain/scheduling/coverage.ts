// Schedule coverage: for each channel, whether the coming days are covered by scheduled and published posts,
// where the next gap is, and what a person can do about it. Pure: the caller hands in the posts, the profile,
// the targets and the clock (docs/decisions.md, "Schedule coverage").
import { DateTime } from 'luxon';
import { platformNames, type Platform } from '../shared/platforms.js';
import { windowsFor } from './profile.js';
import { minutesOfDay } from './time.js';
import type { PostingWindow, SchedulingProfile } from './types.js';

export type CoverageStatus = 'covered' | 'gap' | 'clustered' | 'waiting';

export interface CoveragePost {
  /** `scheduled` also stands for posts being published right now. */
  status: 'scheduled' | 'published' | 'pending_approval';
  /** When it is (or was) due; null for a post waiting for approval without a planned time. */
  at: string | null;
}

export interface CoverageChannelInput {
  platform: Platform;
  /** The active strategy's postsPerWeek for the channel, when there is one. */
  postsPerWeek: number | null;
  posts: readonly CoveragePost[];
}

export interface CoverageInput {
  now: string;
  /** Local days from today (today included). */
  days: number;
  timezone: string;
  profile: SchedulingProfile;
  channels: readonly CoverageChannelInput[];
}

export interface ChannelCoverage {
  platform: Platform;
  scheduledCount: number;
  publishedCount: number;
  pendingApprovalCount: number;
  targetPosts: number | null;
  status: CoverageStatus;
  nextGapAt: string | null;
  notes: string[];
}

export interface ScheduleCoverage {
  windowDays: number;
  timezone: string;
  overallStatus: 'covered' | 'needs_attention';
  channels: ChannelCoverage[];
  pendingApprovalTotal: number;
}

/** Without a target, this many posting days in a row without a post make a gap. */
const quietDaysWithoutTarget = 2;

interface Day {
  date: DateTime;
  /** Whether the channel's windows admit posting that day (weekday, weekends, blackout dates). */
  posting: boolean;
  /** The first window's start that day, as an instant (where a gap is said to begin). */
  opensAt: DateTime;
  /** The last window's end that day. */
  closesAt: DateTime;
  posts: number;
}

/** The local time of day on that date (wall-clock, not elapsed minutes: a DST day keeps 09:00 at 09:00). */
function atMinutes(date: DateTime, minutes: number): DateTime {
  if (minutes >= 24 * 60) return date.plus({ days: 1 }).startOf('day');
  return date.set({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
}

function daysOf(input: CoverageInput, windows: readonly PostingWindow[]): Day[] {
  const today = DateTime.fromISO(input.now, { zone: input.timezone }).startOf('day');
  const blackout = new Set(input.profile.blackoutDates);
  const out: Day[] = [];
  for (let i = 0; i < input.days; i++) {
    const date = today.plus({ days: i });
    const weekday = date.weekday % 7; // Luxon: 1 = Monday … 7 = Sunday; ours: 0 = Sunday
    const open = windows.filter((w) => w.weight > 0 && w.days.includes(weekday));
    const posting =
      // windowsFor already leaves weekend days out when the profile does.
      open.length > 0 && !blackout.has(date.toISODate()!);
    const first = open.length > 0 ? Math.min(...open.map((w) => minutesOfDay(w.start))) : 0;
    const last = open.length > 0 ? Math.max(...open.map((w) => minutesOfDay(w.end))) : 24 * 60;
    out.push({
      date,
      posting,
      opensAt: atMinutes(date, first),
      closesAt: atMinutes(date, last),
      posts: 0,
    });
  }
  return out;
}

const label = (d: DateTime) => d.toFormat('ccc d LLL');

function assessChannel(input: CoverageInput, channel: CoverageChannelInput): ChannelCoverage {
  const { profile } = input;
  const now = DateTime.fromISO(input.now);
  const days = daysOf(input, windowsFor(profile, channel.platform));
  // Instants as epoch milliseconds (each local day's start came from Luxon once): a post is placed by comparing
  // numbers, not by building a zoned date per post.
  const dayStarts = [
    ...days.map((d) => d.date.toMillis()),
    days[0]!.date.plus({ days: input.days }).toMillis(),
  ];
  const dayOf = (at: string | null): number => {
    if (at === null) return -1;
    const ms = Date.parse(at);
    if (!(ms >= dayStarts[0]! && ms < dayStarts[dayStarts.length - 1]!)) return -1;
    let i = 0;
    while (ms >= dayStarts[i + 1]!) i++;
    return i;
  };
  let scheduledCount = 0;
  let publishedCount = 0;
  let pendingApprovalCount = 0;
  for (const post of channel.posts) {
    if (post.status === 'pending_approval') {
      // Waiting posts count when they are planned in the window or not planned at all.
      if (post.at === null || dayOf(post.at) >= 0) pendingApprovalCount++;
      continue;
    }
    const day = dayOf(post.at);
    if (day < 0) continue;
    if (post.status === 'scheduled') scheduledCount++;
    else publishedCount++;
    days[day]!.posts++;
  }
  const dated = scheduledCount + publishedCount;
  const postingDays = days.filter((d) => d.posting);
  const targetPosts =
    channel.postsPerWeek === null ? null : Math.round(((channel.postsPerWeek * input.days) / 7) * 10) / 10;
  // A gap: this many posting days in a row with nothing on them, from today's remaining posting days on.
  const quietLimit =
    targetPosts !== null && targetPosts > 0
      ? Math.max(1, Math.ceil((postingDays.length / targetPosts) * 1.5))
      : quietDaysWithoutTarget;
  let nextGap: Day | null = null;
  let run: Day[] = [];
  for (const day of days) {
    if (!day.posting) continue;
    // A day whose windows have all closed cannot be filled any more.
    if (day.posts === 0 && day.closesAt <= now) continue;
    if (day.posts > 0) run = [];
    else {
      run.push(day);
      if (run.length >= quietLimit && (targetPosts === null || targetPosts > 0)) {
        nextGap = run[0]!;
        break;
      }
    }
  }
  // A run that reaches the window's end counts when it is as long as the window allows.
  // A channel the strategy switches off (target 0) has no gap to fill.
  const wanted = targetPosts === null || targetPosts > 0;
  if (
    wanted &&
    !nextGap &&
    run.length > 0 &&
    run.length >= Math.min(quietLimit, postingDays.length) &&
    dated === 0
  )
    nextGap = run[0]!;
  const crowded = days.filter((d) => d.posts > profile.maxPostsPerDay);
  const short =
    targetPosts !== null ? dated < Math.floor(targetPosts) : dated === 0 && postingDays.length > 0;
  const needed = targetPosts !== null ? Math.max(0, Math.ceil(targetPosts) - dated) : nextGap ? 1 : 0;

  // With a target, "enough" is the target: enough posts with a gap or an over-full day are clustered. Without
  // one, a gap is not enough posts (gap, or waiting when drafts wait for approval); an over-full day is clustered.
  let status: CoverageStatus;
  if (!short && !nextGap && crowded.length === 0) status = 'covered';
  else if (crowded.length > 0 || (targetPosts !== null && !short)) status = 'clustered';
  else if (pendingApprovalCount > 0 && pendingApprovalCount >= needed) status = 'waiting';
  else status = 'gap';

  const name = platformNames[channel.platform];
  const notes: string[] = [];
  const planned = `${dated} post${dated === 1 ? '' : 's'} in the next ${input.days} day${input.days === 1 ? '' : 's'}`;
  if (targetPosts === 0)
    notes.push(`${name} is switched off in the active strategy: no posts are needed (${planned}).`);
  else if (targetPosts !== null)
    notes.push(
      `${planned} against a target of ${targetPosts} (${channel.postsPerWeek} per week in the active strategy)` +
        (needed > 0 ? `: ${needed} more needed.` : '.'),
    );
  if (status === 'covered' && targetPosts !== 0) {
    const upcoming = channel.posts
      .filter((p) => p.status === 'scheduled' && p.at !== null && Date.parse(p.at) > now.toMillis())
      .map((p) => Date.parse(p.at!));
    const next =
      upcoming.length > 0 ? DateTime.fromMillis(Math.min(...upcoming), { zone: input.timezone }) : undefined;
    notes.push(
      `${name} is on track: ${planned}${next ? `, next on ${label(next)} at ${next.toFormat('HH:mm')}` : ''}.`,
    );
  }
  if (nextGap)
    notes.push(
      `Nothing on ${name} from ${label(nextGap.date)} for ${run.length} posting day${run.length === 1 ? '' : 's'}: ` +
        `schedule an approved post or ask for the best slots (GET …/scheduler/slots?platform=${channel.platform}).`,
    );
  if (crowded.length > 0)
    notes.push(
      `${crowded.map((d) => `${label(d.date)} has ${d.posts} posts`).join('; ')}, above the ${profile.maxPostsPerDay} a day ` +
        'the settings allow: move some to quieter days.',
    );
  else if (status === 'clustered')
    notes.push(
      `${name} has the posts its target needs but they are bunched together: spread them to close the gap.`,
    );
  if (pendingApprovalCount > 0)
    notes.push(
      `${pendingApprovalCount} ${name} post${pendingApprovalCount === 1 ? ' waits' : 's wait'} for approval` +
        (status === 'waiting' ? ': approving them would cover the window.' : '.'),
    );
  if (status === 'gap' && pendingApprovalCount === 0 && dated === 0)
    notes.push(`Nothing is planned for ${name}: draft a post or ask the assistant for ideas.`);

  return {
    platform: channel.platform,
    scheduledCount,
    publishedCount,
    pendingApprovalCount,
    targetPosts,
    status,
    nextGapAt: nextGap ? nextGap.opensAt.toUTC().toISO({ suppressMilliseconds: false })! : null,
    notes,
  };
}

export function assessCoverage(input: CoverageInput): ScheduleCoverage {
  const channels = input.channels.map((c) => assessChannel(input, c));
  return {
    windowDays: input.days,
    timezone: input.timezone,
    overallStatus:
      channels.length > 0 && channels.every((c) => c.status === 'covered') ? 'covered' : 'needs_attention',
    channels,
    pendingApprovalTotal: channels.reduce((n, c) => n + c.pendingApprovalCount, 0),
  };
}
