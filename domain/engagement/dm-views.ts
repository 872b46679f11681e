// A DM conversation as callers see it (the spec's "DM conversation"), read off the aggregate at an instant in the
// workspace's time zone: the status, and when to follow up. The follow-up rule (docs/decisions.md, "Engagement
// settings and DMs"): a conversation waiting on them (my message last) is due for a follow-up at 09:00 on the
// workspace's clocks, three local days after the day of my last message; never for one whose turn is mine or that
// is closed. Computed at read time from the log and the zone, so a change of zone or the clock moves it at once.
import { addLocalDays, localParts, localToUtc } from '../scheduling/time.js';
import {
  dmStatusOf,
  lastMessageOf,
  type DmConversation,
  type DmMessage,
  type DmStatus,
} from './dm-conversation.js';
import { xProfileUrl } from './handles.js';

export const followUpRule = {
  /** Local days after the day of my last message. */
  days: 3,
  /** The local time of day, in minutes (09:00). */
  minutesOfDay: 9 * 60,
} as const;

/**
 * When a conversation whose last message (mine) was at `lastMessageAt` is due for a follow-up: 09:00 in `timezone`
 * three local days later (DST-correct: the clocks' 09:00, whatever the offset that day). Where clocks skip 09:00,
 * the first minute after it they show.
 */
export function followUpAtOf(lastMessageAt: string, timezone: string): string {
  const date = addLocalDays(localParts(lastMessageAt, timezone).localDate, followUpRule.days);
  for (let minutes = followUpRule.minutesOfDay; minutes < 24 * 60; minutes++) {
    const at = localToUtc(date, minutes, timezone);
    if (at !== null) return at;
  }
  // No zone skips a whole morning; the UTC reading of the rule stays a sane answer if one ever did.
  return `${date}T09:00:00.000Z`;
}

export interface DmPersonView {
  handle: string;
  name: string | null;
  bio: string | null;
  followers: number | null;
  profileUrl: string;
}

export interface DmConversationView {
  id: string;
  platform: 'x';
  status: DmStatus;
  person: DmPersonView;
  notes: string | null;
  messages: DmMessage[];
  draftText: string | null;
  draftReason: string | null;
  draftedAt: string | null;
  lastMessageAt: string | null;
  followUpAt: string | null;
  followUpDue: boolean;
  sendOnXUrl: string;
  createdAt: string;
}

export function dmConversationView(
  conversation: DmConversation,
  at: { now: string; timezone: string },
): DmConversationView {
  const status = dmStatusOf(conversation);
  const last = lastMessageOf(conversation);
  const followUpAt = status === 'waiting' && last ? followUpAtOf(last.at, at.timezone) : null;
  const profileUrl = xProfileUrl(conversation.handle);
  return {
    id: conversation.conversationId,
    platform: 'x',
    status,
    // Only the handle is known: nothing is read from X in tracking (a later connector lookup may fill the rest).
    person: { handle: conversation.handle, name: null, bio: null, followers: null, profileUrl },
    notes: conversation.notes,
    messages: conversation.messages,
    draftText: conversation.draft?.text ?? null,
    draftReason: conversation.draft?.reason ?? null,
    draftedAt: conversation.draft?.at ?? null,
    lastMessageAt: last?.at ?? null,
    followUpAt,
    followUpDue: followUpAt !== null && Date.parse(followUpAt) <= Date.parse(at.now),
    // X opens a DM to someone from their profile (its Message button); a compose link needs their numeric id.
    sendOnXUrl: profileUrl,
    createdAt: conversation.createdAt,
  };
}

export type DmListFilter = 'open' | 'your_turn' | 'waiting' | 'follow_up_due' | 'closed' | 'all';

export function matchesDmFilter(view: DmConversationView, filter: DmListFilter): boolean {
  switch (filter) {
    case 'open':
      return view.status !== 'closed';
    case 'follow_up_due':
      return view.followUpDue;
    case 'all':
      return true;
    case 'your_turn':
    case 'waiting':
    case 'closed':
      return view.status === filter;
  }
}

/** Your turn first, then follow-ups due, then the other waiting ones, then closed; newest activity first in each. */
export function compareDmConversations(a: DmConversationView, b: DmConversationView): number {
  const rank = (v: DmConversationView) =>
    v.status === 'your_turn' ? 0 : v.followUpDue ? 1 : v.status === 'waiting' ? 2 : 3;
  const activity = (v: DmConversationView) => Date.parse(v.lastMessageAt ?? v.createdAt);
  return rank(a) - rank(b) || activity(b) - activity(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
