// Ranking upcoming posting times: pure and deterministic (the clock comes in the query).
//
// Candidates. In the query's time zone (else the profile's effective one), every local day from today for `days`
// days (or only `localDate`), every weekday the platform's windows admit (windowsFor leaves weekend days out when
// the profile does), and in each window its start and every quarter hour after it before its end (`09:10–10:00`
// gives 09:10, 09:15 … 09:45). Clock times the day skips (clocks going forward) are not candidates; times shown
// twice (clocks going back) are placed at the earlier instant. A candidate is at least LEAD_MINUTES after now, not
// on a blackout date, and, when the owner gave availability, inside one of its windows for that weekday. Windows
// of weight 0 never give a candidate; a time inside several windows counts with the heaviest.
//
// Score (before normalising):
//   raw = (w / wMax) × s × 1 / (1 + 0.01 × d)
//   w     the weight of the window, wMax the heaviest window of the platform (of all three for the workspace);
//   s     1 on the defaults basis; on the history basis, for the candidate's local (weekday, hour) bucket with n
//         posts, r = bucket mean engagement / overall mean engagement per post (1 when the overall mean is 0), and
//         s = (n × r + K × 1) / (n + K), K = 3: a bucket with few posts stays close to the windows' own ranking;
//   d     local days ahead of today: a mild preference for sooner times.
// (History buckets are read as weekday and hour on the clocks of the zone ranked in: a caller ranking in another
// zone than the effective one (suggested-times) should bucket the history in that zone.)
//   score = round(1000 × raw / rawMax) / 10, rawMax the best candidate of the range asked for (that one scores 100).
// Candidates rank by raw score, then by time (earlier first).
//
// Selection goes down the ranking and keeps a candidate only when the kept set can be scheduled together: at least
// minGapMinutes from every scheduled post and every kept slot (and never at the very instant of one), and its local
// day holding fewer than maxPostsPerDay posts, scheduled ones of that day counted with kept ones.
import { platformNames, type Platform } from '../shared/platforms.js';
import { sourcedWindowsFor, type SourcedWindow } from './profile.js';
import {
  daysBetween,
  formatMinutes,
  localDays,
  minutesOfDay,
  todayAt,
  weekdayNames,
  weekdayShortNames,
} from './time.js';
import type { History, RankedSlot, SlotBasis, SlotQuery } from './types.js';

/** Published posts with results needed before the workspace's own history shapes the ranking. */
export const MIN_HISTORY_POSTS = 10;
export const SLOT_STEP_MINUTES = 15;
/** A slot starts at least this long after now. */
export const LEAD_MINUTES = 15;
/** How many posts' worth of belief the windows keep against a bucket's history (K in the formula above). */
export const HISTORY_SMOOTHING_POSTS = 3;
/** The per-day decay of the preference for sooner times. */
export const SOONER_PER_DAY = 0.01;
/** The longest look-ahead ranked. */
export const MAX_SLOT_DAYS = 366;

const minuteMs = 60_000;

interface Candidate {
  /** A minute of the day, 0–1439. */
  minute: number;
  /** The index (in the sourced windows) of the heaviest window admitting it. */
  window: number;
}

interface HistoryStats {
  /** By weekday × 24 + hour: s of the formula. */
  factor: Float64Array;
  ratio: Float64Array;
  posts: Float64Array;
}

function historyStats(history: History): HistoryStats {
  const posts = new Float64Array(168);
  const total = new Float64Array(168);
  for (const b of history.buckets) {
    if (!Number.isInteger(b.weekday) || b.weekday < 0 || b.weekday > 6) continue;
    if (!Number.isInteger(b.hour) || b.hour < 0 || b.hour > 23) continue;
    const n = Number.isFinite(b.posts) && b.posts > 0 ? b.posts : 0;
    const e = Number.isFinite(b.engagement) && b.engagement > 0 ? b.engagement : 0;
    posts[b.weekday * 24 + b.hour]! += n;
    total[b.weekday * 24 + b.hour]! += n * e;
  }
  let n = 0;
  let sum = 0;
  for (let i = 0; i < 168; i++) {
    n += posts[i]!;
    sum += total[i]!;
  }
  const overallMean = n > 0 ? sum / n : 0;
  const K = HISTORY_SMOOTHING_POSTS;
  const factor = new Float64Array(168).fill(1);
  const ratio = new Float64Array(168).fill(1);
  for (let i = 0; i < 168; i++) {
    const bn = posts[i]!;
    if (bn <= 0) continue;
    const r = overallMean > 0 ? total[i]! / bn / overallMean : 1;
    ratio[i] = r;
    factor[i] = (bn * r + K) / (bn + K);
  }
  return { factor, ratio, posts };
}

/** The first index of `sorted` whose value is ≥ `value`. */
function lowerBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether `t` is within `gapMs` of (or at) any time of `sorted`. */
function clashes(sorted: readonly number[], t: number, gapMs: number): boolean {
  const i = lowerBound(sorted, t);
  if (i < sorted.length && (sorted[i]! - t < gapMs || sorted[i] === t)) return true;
  return i > 0 && t - sorted[i - 1]! < gapMs;
}

/** Candidate indices, best first: higher raw score, then the earlier time. */
class RankHeap {
  private readonly heap: Int32Array;
  private size: number;
  constructor(
    private readonly raw: readonly number[],
    private readonly time: readonly number[],
  ) {
    this.size = raw.length;
    this.heap = new Int32Array(this.size);
    for (let i = 0; i < this.size; i++) this.heap[i] = i;
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
  }
  private before(a: number, b: number): boolean {
    const ra = this.raw[a]!;
    const rb = this.raw[b]!;
    return ra > rb || (ra === rb && this.time[a]! < this.time[b]!);
  }
  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) return;
      const r = l + 1;
      const c = r < this.size && this.before(h[r]!, h[l]!) ? r : l;
      if (!this.before(h[c]!, h[i]!)) return;
      const x = h[i]!;
      h[i] = h[c]!;
      h[c] = x;
      i = c;
    }
  }
  pop(): number | undefined {
    if (this.size === 0) return undefined;
    const top = this.heap[0]!;
    this.size--;
    this.heap[0] = this.heap[this.size]!;
    this.down(0);
    return top;
  }
}

export function rankSlots(query: SlotQuery): RankedSlot[] {
  const { profile } = query;
  const tz = query.timezone ?? profile.effectiveTimezone;
  const nowMs = Date.parse(query.now);
  if (!Number.isFinite(nowMs)) throw new RangeError(`Not an ISO instant: ${JSON.stringify(query.now)}`);
  const count = Math.floor(query.count);
  if (!(count > 0)) return [];

  const sourced = sourcedWindowsFor(profile, query.platform);
  const maxWeight = sourced.reduce((m, s) => Math.max(m, s.window.weight), 0);
  if (!(maxWeight > 0)) return [];

  const today = todayAt(nowMs, tz);
  const firstDate = query.localDate ?? today;
  const dayCount =
    query.localDate !== undefined ? 1 : Math.max(0, Math.min(MAX_SLOT_DAYS, Math.floor(query.days)));
  if (dayCount === 0) return [];
  const firstAhead = daysBetween(today, firstDate);
  if (firstAhead + dayCount <= 0) return []; // all before today

  // Per weekday: the candidate minutes with their heaviest window, inside the owner's availability.
  const availability: Array<Array<[number, number]>> = Array.from({ length: 7 }, () => []);
  for (const a of profile.ownerAvailability)
    for (const d of new Set(a.days)) availability[d]?.push([minutesOfDay(a.start), minutesOfDay(a.end)]);
  const available = (weekday: number, minute: number) =>
    profile.ownerAvailability.length === 0 ||
    availability[weekday]!.some(([start, end]) => start <= minute && minute < end);
  const byWeekday: Candidate[][] = [];
  for (let wd = 0; wd < 7; wd++) {
    const best = new Map<number, number>();
    sourced.forEach((s, index) => {
      const { window } = s;
      if (!(window.weight > 0) || !window.days.includes(wd)) return;
      const start = minutesOfDay(window.start);
      const end = Math.min(1440, minutesOfDay(window.end));
      const firstStep = (Math.floor(start / SLOT_STEP_MINUTES) + 1) * SLOT_STEP_MINUTES;
      for (let m = start; m < end; m = m === start ? firstStep : m + SLOT_STEP_MINUTES) {
        if (!available(wd, m)) continue;
        const held = best.get(m);
        if (held === undefined || sourced[held]!.window.weight < window.weight) best.set(m, index);
      }
    });
    byWeekday.push(
      [...best].map(([minute, window]) => ({ minute, window })).sort((a, b) => a.minute - b.minute),
    );
  }

  const useHistory = query.history !== null && query.history.posts >= MIN_HISTORY_POSTS;
  const stats = useHistory ? historyStats(query.history!) : null;
  const blackout = new Set(profile.blackoutDates);
  const earliest = nowMs + LEAD_MINUTES * minuteMs;
  const days = localDays(firstDate, dayCount, tz);

  const gapMs = Math.max(0, profile.minGapMinutes) * minuteMs;
  const scheduled = query.scheduled
    .map((time) => (typeof time === 'number' ? time : Date.parse(time)))
    .filter((t) => Number.isFinite(t))
    .sort((a, b) => a - b);
  const scheduledOnDay = days.map(
    (day) => lowerBound(scheduled, day.endMs) - lowerBound(scheduled, day.startMs),
  );

  // Candidates in parallel arrays. rawMax is over every admissible time of the range; a time that clashes with a
  // scheduled post, or on a day the scheduled posts already fill, is left out of the ranking straight away.
  const cTime: number[] = [];
  const cRaw: number[] = [];
  const cDay: number[] = [];
  const cMinute: number[] = [];
  const cWindow: number[] = [];
  let rawMax = 0;
  days.forEach((day, k) => {
    if (blackout.has(day.localDate) || day.endMs <= earliest) return;
    const dayFull = scheduledOnDay[k]! >= profile.maxPostsPerDay;
    const ahead = Math.max(0, firstAhead + k);
    const sooner = 1 / (1 + SOONER_PER_DAY * ahead);
    for (const c of byWeekday[day.weekday]!) {
      const t = day.toUtcMs(c.minute);
      if (t === null || t < earliest) continue;
      const base = sourced[c.window]!.window.weight / maxWeight;
      const s = stats ? stats.factor[day.weekday * 24 + Math.floor(c.minute / 60)]! : 1;
      const raw = base * s * sooner;
      if (raw > rawMax) rawMax = raw;
      if (dayFull || clashes(scheduled, t, gapMs)) continue;
      cTime.push(t);
      cRaw.push(raw);
      cDay.push(k);
      cMinute.push(c.minute);
      cWindow.push(c.window);
    }
  });
  if (cTime.length === 0) return [];

  // Rank order, taken lazily from a heap: only as far down the ranking as the selection needs to go.
  const ranking = new RankHeap(cRaw, cTime);
  const takenOnDay = new Map<number, number>();
  const takenTimes: number[] = [];
  const taken: number[] = [];
  while (taken.length < count) {
    const i = ranking.pop();
    if (i === undefined) break;
    const t = cTime[i]!;
    const k = cDay[i]!;
    const onDay = takenOnDay.get(k) ?? 0;
    if (scheduledOnDay[k]! + onDay >= profile.maxPostsPerDay) continue;
    if (clashes(takenTimes, t, gapMs)) continue;
    taken.push(i);
    takenOnDay.set(k, onDay + 1);
    takenTimes.splice(lowerBound(takenTimes, t), 0, t);
  }

  const basis: SlotBasis = useHistory ? 'history' : 'defaults';
  return taken.map((i) => {
    const day = days[cDay[i]!]!;
    const minute = cMinute[i]!;
    const source = sourced[cWindow[i]!]!;
    const score = Math.round((1000 * cRaw[i]!) / rawMax) / 10;
    const localTime = formatMinutes(minute);
    const weekday = weekdayNames[day.weekday]!;
    return {
      scheduledForUtc: new Date(cTime[i]!).toISOString(),
      localDate: day.localDate,
      localTime,
      weekday,
      score,
      reason: reasonFor({
        weekday: day.weekday,
        localTime,
        hour: Math.floor(minute / 60),
        tz,
        source,
        platform: query.platform,
        audienceType: profile.audienceType,
        available: profile.ownerAvailability.length > 0,
        history: query.history,
        stats,
        score,
      }),
      basis,
      window: { ...source.window, days: [...source.window.days] },
    };
  });
}

// ---------------------------------------------------------------------------------------------- reasons

const mondayFirst = (weekday: number) => (weekday + 6) % 7;

/** Weekdays Monday first, runs of three or more as a range: `Tue–Thu`, `Mon, Fri`, `Mon–Fri`, `every day`. */
export function describeDays(days: readonly number[]): string {
  const set = new Set(days);
  if (set.size === 7) return 'every day';
  const order = [1, 2, 3, 4, 5, 6, 0].filter((d) => set.has(d));
  const parts: string[] = [];
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && mondayFirst(order[j + 1]!) === mondayFirst(order[j]!) + 1) j++;
    if (j - i >= 2) parts.push(`${weekdayShortNames[order[i]!]}–${weekdayShortNames[order[j]!]}`);
    else for (let x = i; x <= j; x++) parts.push(weekdayShortNames[order[x]!]!);
    i = j + 1;
  }
  return parts.join(', ');
}

const formatNumber = (n: number) => String(Math.round(n * 100) / 100);

interface ReasonInput {
  weekday: number;
  localTime: string;
  hour: number;
  tz: string;
  source: SourcedWindow;
  platform: Platform | null;
  audienceType: string;
  available: boolean;
  history: History | null;
  stats: HistoryStats | null;
  score: number;
}

function reasonFor(r: ReasonInput): string {
  const { window } = r.source;
  const name = r.source.platform ? platformNames[r.source.platform] : null;
  const owner = r.source.custom ? 'your' : `the default ${r.audienceType}`;
  const which = name
    ? `${owner} ${name} window`
    : `${owner} window for ${r.platform ? platformNames[r.platform] : 'other platforms'}`;
  const where =
    `${weekdayNames[r.weekday]} ${r.localTime} in ${r.tz}: inside ${which} ` +
    `${describeDays(window.days)} ${window.start}–${window.end} (weight ${formatNumber(window.weight)})` +
    (r.available ? ', when you are available' : '');
  const around = `${weekdayNames[r.weekday]} ${r.hour}:00`;
  let basis: string;
  if (r.stats) {
    const bucket = r.weekday * 24 + r.hour;
    const n = r.stats.posts[bucket]!;
    basis =
      n > 0
        ? `your posts published around ${around} earned ${r.stats.ratio[bucket]!.toFixed(1)}× your average ` +
          `engagement (${formatNumber(n)} ${n === 1 ? 'post' : 'posts'})`
        : `none of your ${r.history!.posts} posts with results was published around ${around}, so the window's ` +
          'weight decides';
  } else {
    const have = r.history?.posts ?? 0;
    basis = `not enough published posts with results yet (${have} of ${MIN_HISTORY_POSTS}) to learn from`;
  }
  return `${where}; ${basis}. Score ${r.score}.`;
}
