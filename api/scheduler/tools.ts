// The scheduler slice's assistant tool: suggest_slots (mcp:read), on the same use case as GET …/scheduler/slots.
import { suggestSlots, type SchedulerDeps } from '../../commands/scheduler/scheduler-use-cases.js';
import { defineTool, type AnyTool } from '../shared/tools.js';
import { slotsQuery } from './schemas.js';

export function schedulerTools(deps: SchedulerDeps): readonly AnyTool[] {
  return [
    defineTool({
      name: 'suggest_slots',
      title: 'Suggest posting times',
      description:
        'Ranks upcoming posting times for the workspace on one platform (`x`, `linkedin` or `tiktok`; all of them ' +
        'when omitted), best first, inside its posting windows and clear of posts already scheduled, full days ' +
        'and blackout dates. Each slot has the UTC time, the local date, time and weekday in the audience time ' +
        "zone, a score (0–100), a reason, and `basis`: `history` when the workspace's own published posts " +
        'ranked it, `defaults` before there is enough history. Read-only: it schedules nothing — pass a chosen ' +
        '`scheduledForUtc` to schedule_post_group or approve_post_group for that.',
      scope: 'mcp:read',
      input: slotsQuery,
      hints: { readOnlyHint: true, openWorldHint: false },
      run: ({ caller, orgId, request }, query) =>
        suggestSlots(deps, caller, { orgId, ...query }, request.now),
      summary: (s) =>
        s.slots.length === 0
          ? `No free slot in the period (time zone ${s.timezone}).`
          : `${s.slots.length} slots in ${s.timezone} (basis: ${s.slots[0]!.basis}, ${s.historyPosts} posts of ` +
            `history); best: ${s.slots[0]!.weekday} ${s.slots[0]!.localDate} ${s.slots[0]!.localTime}.`,
    }),
  ];
}
