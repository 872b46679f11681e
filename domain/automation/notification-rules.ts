// Which X automation events notify whom: a run that acted on X (reposted, deleted, or failed to) tells every
// member but the one who ran it; a nightly dry run that would have acted tells those who manage the rules, so
// they can judge before turning dry run off. Contributed to the notifications read model by api/automation/slice.ts.
import { defineNotificationRules, type NotificationIntent } from '../notifications/rules.js';
import { xAutomationEventCodec } from './event-codec.js';

const posts = (count: number) => `${count} post${count === 1 ? '' : 's'}`;

export const xAutomationNotificationRules = defineNotificationRules(
  xAutomationEventCodec,
  ['XAutomationRunCompleted'],
  (event): NotificationIntent[] => {
    const d = event.data;
    const repost = d.byKind.auto_repost;
    const del = d.byKind.auto_delete;
    const href = `/v1/orgs/${d.orgId}/automation/x/runs`;
    const metadata = { runId: d.runId, trigger: d.trigger, acted: d.counts.acted, failed: d.counts.failed };
    const live = repost.acted + repost.failed + del.acted + del.failed;
    if (live > 0) {
      const done = [
        repost.acted > 0 ? `reposted ${posts(repost.acted)}` : null,
        del.acted > 0 ? `deleted ${posts(del.acted)}` : null,
      ].filter((s) => s !== null);
      const failed = repost.failed + del.failed;
      const title =
        done.length > 0
          ? `X automation ${done.join(' and ')}`
          : `X automation could not act on ${posts(failed)}`;
      const body = [
        d.trigger === 'nightly' ? 'The nightly run' : 'A run started by a member',
        failed > 0 && done.length > 0 ? `; ${posts(failed)} failed` : '',
        '. See the runs for each post.',
      ].join('');
      return [
        {
          orgId: d.orgId,
          tier: failed > 0 ? 'action_required' : 'routine',
          type: 'x_automation_acted',
          title,
          body,
          href,
          recipients: { kind: 'permission', permission: 'posts:read', except: d.by },
          dedupeKey: `x_automation_acted:${d.runId}`,
          metadata,
          createdAt: d.completedAt,
        },
      ];
    }
    const planned = repost.planned + del.planned;
    if (d.trigger === 'nightly' && planned > 0) {
      const would = [
        repost.planned > 0 ? `repost ${posts(repost.planned)}` : null,
        del.planned > 0 ? `delete ${posts(del.planned)}` : null,
      ].filter((s) => s !== null);
      return [
        {
          orgId: d.orgId,
          tier: 'routine',
          type: 'x_automation_planned',
          title: `X automation (dry run) would ${would.join(' and ')}`,
          body: 'Nothing was changed on X. Turn dry run off in the rules to let it act.',
          href,
          recipients: { kind: 'permission', permission: 'settings:manage', except: null },
          dedupeKey: `x_automation_planned:${d.runId}`,
          metadata,
          createdAt: d.completedAt,
        },
      ];
    }
    return [];
  },
);
