// Which X automation runs notify whom: a run that acted on X (or failed to) tells every member but the one who
// ran it; a nightly dry run that would have acted tells those who manage the rules; a run that did nothing, or
// a dry run someone ran by hand (they saw the answer), tells no one.
import { describe, expect, test } from 'vitest';
import type { KindSummary, XAutomationEvent } from '../../domain/automation/event-codec.js';
import { xAutomationNotificationRules } from '../../domain/automation/notification-rules.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const userId = '00000000-0000-4000-8000-0000000000b1';
const none: KindSummary = { planned: 0, acted: 0, skipped: 0, failed: 0 };

function completed(
  trigger: 'manual' | 'nightly',
  byKind: { auto_repost?: Partial<KindSummary>; auto_delete?: Partial<KindSummary> },
): Extract<XAutomationEvent, { type: 'XAutomationRunCompleted' }> {
  const repost = { ...none, ...byKind.auto_repost };
  const del = { ...none, ...byKind.auto_delete };
  return {
    type: 'XAutomationRunCompleted',
    data: {
      orgId,
      runId: 'run-1',
      trigger,
      localDate: trigger === 'nightly' ? '2026-03-10' : null,
      by: trigger === 'manual' ? userId : null,
      dryRun: false,
      kinds: ['auto_repost', 'auto_delete'],
      counts: {
        evaluated: 9,
        matched: 3,
        acted: repost.acted + del.acted,
        skipped: repost.skipped + del.skipped,
        failed: repost.failed + del.failed,
      },
      byKind: { auto_repost: repost, auto_delete: del },
      warnings: [],
      completedAt: '2026-03-10T02:05:00.000Z',
    },
  };
}

const notify = (event: Extract<XAutomationEvent, { type: 'XAutomationRunCompleted' }>) =>
  xAutomationNotificationRules.notify(event, { group: null });

describe('X automation notifications', () => {
  test('acting tells every member but the one who ran it, once per run', () => {
    const [n, ...rest] = notify(
      completed('manual', { auto_repost: { acted: 2 }, auto_delete: { acted: 1 } }),
    );
    expect(rest).toEqual([]);
    expect(n).toMatchObject({
      type: 'x_automation_acted',
      tier: 'routine',
      title: 'X automation reposted 2 posts and deleted 1 post',
      recipients: { kind: 'permission', permission: 'posts:read', except: userId },
      dedupeKey: 'x_automation_acted:run-1',
      href: `/v1/orgs/${orgId}/automation/x/runs`,
    });
  });

  test('failures need attention', () => {
    const [only] = notify(completed('nightly', { auto_delete: { failed: 2 } }));
    expect(only).toMatchObject({ tier: 'action_required', title: 'X automation could not act on 2 posts' });
    const [mixed] = notify(completed('nightly', { auto_delete: { acted: 1, failed: 1 } }));
    expect(mixed!.body).toMatch(/1 post failed/);
  });

  test('a nightly dry run that would act tells those who manage the rules', () => {
    const [n] = notify(completed('nightly', { auto_repost: { planned: 1 } }));
    expect(n).toMatchObject({
      type: 'x_automation_planned',
      title: 'X automation (dry run) would repost 1 post',
      recipients: { kind: 'permission', permission: 'settings:manage', except: null },
    });
  });

  test('nothing done, or a dry run someone ran by hand, tells no one', () => {
    expect(notify(completed('nightly', { auto_repost: { skipped: 3 } }))).toEqual([]);
    expect(notify(completed('manual', { auto_delete: { planned: 4 } }))).toEqual([]);
  });
});
