// Which reply inbox events notify whom (issue 30): a new item of high relevance (at least `highRelevance`, 70) tells
// every member (routine tier; each member's preferences decide in-app and email), once per item. Contributed to
// the notifications read model by api/engagement/slice.ts.
import { defineNotificationRules, type NotificationIntent } from '../notifications/rules.js';
import { inboxItemEventCodec } from './event-codec.js';
import { highRelevance } from './relevance.js';

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
};

export const inboxNotificationRules = defineNotificationRules(
  inboxItemEventCodec,
  ['InboxItemFound'],
  (event): NotificationIntent[] => {
    const d = event.data;
    if (d.relevance === null || d.relevance < highRelevance) return [];
    const where = d.platform === 'x' ? (d.kind === 'community' ? 'an X community' : 'X') : 'Reddit';
    const who = d.author.handle ? `@${d.author.handle}` : 'Someone';
    return [
      {
        orgId: d.orgId,
        tier: 'routine',
        type: 'reply_inbox_relevant',
        title: `${who} on ${where} may deserve a reply (relevance ${d.relevance})`,
        body: clip(d.title ? `${d.title}: ${d.text}` : d.text, 280),
        href: `/v1/orgs/${d.orgId}/engagement/${d.itemId}`,
        recipients: { kind: 'permission', permission: 'posts:read', except: null },
        dedupeKey: `reply_inbox_relevant:${d.itemId}`,
        metadata: { itemId: d.itemId, platform: d.platform, kind: d.kind, relevance: d.relevance },
        createdAt: d.at,
      },
    ];
  },
);
