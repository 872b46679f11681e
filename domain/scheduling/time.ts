// Local dates, local times and time zones for scheduling. Every offset between a local time and UTC comes from
// Luxon's zone data (IANAZone.offset, DateTime); nothing here knows an offset of its own. What is plain calendar
// arithmetic (the day after a date, the weekday of a date) needs no zone and is done on the date alone.
//
// Local times that do not exist (the hour skipped when clocks go forward) have no instant: localToUtc gives null.
// Local times that happen twice (the hour repeated when clocks go back) take the earlier instant.
import { DateTime, IANAZone } from 'luxon';

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
const dayMs = 24 * hourMs;

export const weekdayNames = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const;
export const weekdayShortNames = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

// ------------------------------------------------------------------------------------------ time zones

/** An IANA name's shape: letters, digits, `_`, `-`, `+` in `/`-separated parts, starting with a letter. */
const ianaShape = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
/** `UTC+1`, `GMT-05`: offsets written after a zone name are not IANA names (`Etc/GMT+1` is, and passes). */
const offsetAfterName = /^(?:UTC|GMT|UT|Z)[+-]/i;

function resolvedZoneName(name: string): string | null {
  if (name.length === 0 || name.length > 64 || !ianaShape.test(name) || offsetAfterName.test(name))
    return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * Whether `name` is an IANA time zone name this runtime knows (`UTC`, `Etc/UTC`, `Europe/Berlin`; any letter case).
 * Fixed offsets (`+01:00`, `UTC+1`), blanks and unknown names are not.
 */
export function isIanaTimezone(name: string): boolean {
  return typeof name === 'string' && resolvedZoneName(name) !== null;
}

/**
 * The spelling a time zone name is kept in. A name given in its proper letter case stays as given, including the
 * names the runtime's ICU treats as links (`Asia/Kolkata`, `Europe/Kyiv`, `Etc/UTC`: Node 20 would rewrite them to
 * `Asia/Calcutta`, `Europe/Kiev`, `UTC`, which is not what the person chose). A name in another case takes the
 * runtime's canonical spelling (`europe/berlin` → `Europe/Berlin`). Throws a RangeError for a name that is not an IANA
 * zone.
 */
export function canonicalTimezone(name: string): string {
  const resolved = typeof name === 'string' ? resolvedZoneName(name) : null;
  if (resolved === null) throw new RangeError(`Not an IANA time zone name: ${JSON.stringify(name)}`);
  if (resolved === name || resolved.toLowerCase() === name.toLowerCase()) return resolved;
  return properlyCased(name) ? name : resolved;
}

/** Written as tzdata writes names: each part a capitalised word (`Asia/Kolkata`) or a short capital abbreviation (`US`, `UTC`). */
function properlyCased(name: string): boolean {
  return name.split('/').every((part) => /^[A-Z][a-z]/.test(part) || /^[A-Z]{2,3}$/.test(part));
}

function zoneOf(tz: string): IANAZone {
  const zone = IANAZone.create(tz);
  if (!zone.isValid) throw new RangeError(`Not an IANA time zone name: ${JSON.stringify(tz)}`);
  return zone;
}

// ------------------------------------------------------------------------------------ local dates and times

const localDatePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const localTimePattern = /^([01]\d|2[0-3]):([0-5]\d)$/;

function dateFields(date: string): { year: number; month: number; day: number } | null {
  const m = localDatePattern.exec(date);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return null;
  const t = new Date(Date.UTC(year, month - 1, day));
  if (t.getUTCFullYear() !== year || t.getUTCMonth() !== month - 1 || t.getUTCDate() !== day) return null;
  return { year, month, day };
}

/** A strict `YYYY-MM-DD` naming a day that exists (`2026-02-29` does not). */
export function isLocalDate(s: string): boolean {
  return typeof s === 'string' && dateFields(s) !== null;
}

/** A strict `HH:MM`, `00:00`–`23:59`. */
export function isLocalTime(s: string): boolean {
  return typeof s === 'string' && localTimePattern.test(s);
}

/** A window's end: `HH:MM` `00:01`… `23:59`, or `24:00` for the end of the day. */
export function isLocalEndTime(s: string): boolean {
  return s === '24:00' || isLocalTime(s);
}

/** Minutes since local midnight of `HH:MM` (`24:00` → 1440). Throws for anything else. */
export function minutesOfDay(time: string): number {
  if (!isLocalEndTime(time)) throw new RangeError(`Not a local time HH:MM: ${JSON.stringify(time)}`);
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** `HH:MM` of minutes since local midnight (1440 → `24:00`). */
export function formatMinutes(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 0 || minutes > 1440)
    throw new RangeError(`Not a minute of the day: ${minutes}`);
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

function requireDate(date: string): { year: number; month: number; day: number } {
  const fields = dateFields(date);
  if (!fields) throw new RangeError(`Not a local date YYYY-MM-DD: ${JSON.stringify(date)}`);
  return fields;
}

/** The local date at midnight, written as if it were UTC: the calendar's own milliseconds, no zone involved. */
function calendarMs(date: string): number {
  const { year, month, day } = requireDate(date);
  return Date.UTC(year, month - 1, day);
}

function calendarDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The date `n` days after `date` (before, for negative `n`): calendar arithmetic, the same in every zone. */
export function addLocalDays(date: string, n: number): string {
  return calendarDate(calendarMs(date) + n * dayMs);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((calendarMs(to) - calendarMs(from)) / dayMs);
}

/** The weekday of a local date, 0–6 with 0 = Sunday. */
export function weekdayOf(date: string): number {
  return new Date(calendarMs(date)).getUTCDay();
}

// ------------------------------------------------------------------------------------------- instants

export interface LocalParts {
  localDate: string;
  /** `HH:MM` */
  localTime: string;
  /** 0–6, 0 = Sunday */
  weekday: number;
  weekdayName: string;
  hour: number;
}

function dateTimeIn(iso: string, tz: string): DateTime {
  const dt = DateTime.fromISO(iso, { zone: zoneOf(tz) });
  if (!dt.isValid) throw new RangeError(`Not an ISO instant: ${JSON.stringify(iso)}`);
  return dt;
}

/** Where the instant `iso` falls on the clocks of `tz`. */
export function localParts(iso: string, tz: string): LocalParts {
  const dt = dateTimeIn(iso, tz);
  const weekday = dt.weekday % 7;
  return {
    localDate: dt.toISODate()!,
    localTime: dt.toFormat('HH:mm'),
    weekday,
    weekdayName: weekdayNames[weekday]!,
    hour: dt.hour,
  };
}

/** Today's date on the clocks of `tz` at the instant `now`. */
export function todayIn(now: string, tz: string): string {
  return dateTimeIn(now, tz).toISODate()!;
}

/**
 * todayIn for an instant already in epoch milliseconds: the zone's offset at that instant, without building a
 * Luxon DateTime (the slot finder ranks on every approval, and parsing `now` was a fifth of a ranking).
 */
export function todayAt(nowMs: number, tz: string): string {
  if (!Number.isFinite(nowMs)) throw new RangeError(`Not an instant: ${nowMs}`);
  return calendarDate(nowMs + zoneOf(tz).offset(nowMs) * minuteMs);
}

/**
 * The instant (ISO, UTC) when the clocks of `tz` show `minutesOfDay` (0–1439) on `localDate`; null when they never
 * do (the hour skipped when clocks go forward); the earlier of the two when they do twice (clocks going back).
 */
export function localToUtc(localDate: string, minutesOfDay: number, tz: string): string | null {
  const ms = localDays(localDate, 1, tz)[0]!.toUtcMs(minutesOfDay);
  return ms === null ? null : new Date(ms).toISOString();
}

// ---------------------------------------------------------------------------------- runs of local days

/** One local day in a zone: where it starts and ends in UTC and how its clock times map to instants. */
export interface LocalDay {
  localDate: string;
  /** 0–6, 0 = Sunday */
  weekday: number;
  /** The first instant of the day (UTC milliseconds): midnight, or when clocks skip midnight, the first time shown. */
  startMs: number;
  /** The first instant of the next day. */
  endMs: number;
  /** The instant of a clock time of the day, as localToUtc (null: skipped; twice: the earlier). */
  toUtcMs(minutesOfDay: number): number | null;
}

/**
 * `count` consecutive local days from `firstDate` in `tz`. Fast for long runs: Luxon is asked for the zone's offset
 * once per day, and for the instant of a change of offset (found by halving) only on the days near one; every clock
 * time of a day is then placed without asking again.
 */
/**
 * The zone's UTC offset (minutes) at an instant, remembered: Luxon asks Intl for it (formatToParts), which is most
 * of a slot ranking's time, and rankings ask again and again for the same instants (each day's samples).
 */
function offsetAt(zone: IANAZone, ts: number): number {
  let known = offsetMemo.get(zone);
  if (!known) offsetMemo.set(zone, (known = new Map<number, number>()));
  let offset = known.get(ts);
  if (offset === undefined) {
    offset = zone.offset(ts);
    if (known.size >= maxMemoPerZone) known.clear();
    known.set(ts, offset);
  }
  return offset;
}

/** Luxon keeps one IANAZone per name, so this holds one map per zone in use. */
const offsetMemo = new WeakMap<IANAZone, Map<number, number>>();
const maxMemoPerZone = 20_000;

export function localDays(firstDate: string, count: number, tz: string): LocalDay[] {
  const zone = zoneOf(tz);
  const first = calendarMs(firstDate);
  const weekday0 = new Date(first).getUTCDay();
  // Day k's instants all lie within [L_k - 14h, L_k + 36h] (offsets are between -12h and +14h), L_k its local
  // midnight written as UTC. Offsets sampled every 24 h at L_j - 15h: if the four samples around day k agree, the
  // zone keeps one offset all through it.
  const samples: number[] = [];
  for (let j = 0; j < count + 4; j++) samples.push(offsetAt(zone, first + j * dayMs - 15 * hourMs));

  const plans: DayPlan[] = [];
  for (let k = 0; k <= count; k++) plans.push(planDay(zone, first + k * dayMs, samples, k));

  const days: LocalDay[] = [];
  for (let k = 0; k < count; k++) {
    const plan = plans[k]!;
    const localMidnight = first + k * dayMs;
    days.push({
      localDate: calendarDate(localMidnight),
      weekday: (weekday0 + k) % 7,
      startMs: plan.start,
      endMs: plans[k + 1]!.start,
      toUtcMs(minutes) {
        if (!Number.isInteger(minutes) || minutes < 0 || minutes >= 1440)
          throw new RangeError(`Not a minute of the day: ${minutes}`);
        return plan.toUtc(localMidnight + minutes * minuteMs);
      },
    });
  }
  return days;
}

interface DayPlan {
  /** The first instant whose local time is on or after the day's midnight. */
  start: number;
  toUtc(localMs: number): number | null;
}

function planDay(zone: IANAZone, localMidnight: number, samples: readonly number[], k: number): DayPlan {
  const window = samples.slice(k, k + 4);
  const changes: number[] = [];
  for (let i = 0; i < 3; i++) if (window[i] !== window[i + 1]) changes.push(i);

  if (changes.length === 0) {
    const offsetMs = window[0]! * minuteMs;
    return { start: localMidnight - offsetMs, toUtc: (localMs) => localMs - offsetMs };
  }

  if (changes.length === 1) {
    // One change of offset, between two samples: find its instant T (to the minute) by halving.
    const i = changes[0]!;
    const before = window[i]!;
    const after = window[i + 1]!;
    let lo = localMidnight + i * dayMs - 15 * hourMs; // sample k + i
    let hi = lo + dayMs; // sample k+i+1
    while (hi - lo > minuteMs) {
      const mid = lo + Math.floor((hi - lo) / 2 / minuteMs) * minuteMs;
      if (offsetAt(zone, mid) === before) lo = mid;
      else hi = mid;
    }
    const T = hi;
    const beforeMs = before * minuteMs;
    const afterMs = after * minuteMs;
    const toUtc = (localMs: number): number | null => {
      const a = localMs - beforeMs;
      if (a < T) return a; // shown before the change; the earlier one when shown twice
      const b = localMs - afterMs;
      return b >= T ? b : null; // after the change, or never (skipped)
    };
    const a = localMidnight - beforeMs;
    const start = a < T ? a : Math.max(T, localMidnight - afterMs);
    return { start, toUtc };
  }

  // More than one change within three days (no zone does this today): ask Luxon about every time.
  const offsets = [...new Set(window)].map((o) => o * minuteMs);
  const toUtc = (localMs: number): number | null => {
    let best: number | null = null;
    for (const o of offsets) {
      const t = localMs - o;
      if (offsetAt(zone, t) * minuteMs === o && (best === null || t < best)) best = t;
    }
    return best;
  };
  let start: number | null = null;
  for (let m = 0; m < 1440 && start === null; m++) start = toUtc(localMidnight + m * minuteMs);
  return { start: start ?? localMidnight - offsets[0]!, toUtc };
}
