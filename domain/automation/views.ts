// The X automation as callers see it (spec "X automation rules"): the rules resource and the automation action
// record. The read model stores the same fields, so a run's answer and the runs list read alike.
import type { AutoDeleteRule, AutoRepostRule, AutomationKind } from './event-codec.js';
import type { XAutomationState } from './x-automation.js';

export interface XAutomationRulesView {
  autoRepost: AutoRepostRule | null;
  autoDelete: AutoDeleteRule | null;
  updatedAt: string | null;
  updatedBy: string | null;
}

export type AutomationActionStatus = 'planned' | 'succeeded' | 'failed' | 'skipped';

export interface AutomationActionView {
  id: string;
  kind: AutomationKind;
  socialAccountId: string | null;
  sourcePostId: string | null;
  externalTweetId: string | null;
  /** `planned` is also a live action still in flight (dryRun false) until X answers. */
  status: AutomationActionStatus;
  reason: string | null;
  dryRun: boolean;
  error: string | null;
  createdAt: string;
}

export function rulesView(state: XAutomationState): XAutomationRulesView {
  return {
    autoRepost: state.autoRepost,
    autoDelete: state.autoDelete,
    updatedAt: state.updatedAt,
    updatedBy: state.updatedBy,
  };
}

export const noRules: XAutomationRulesView = {
  autoRepost: null,
  autoDelete: null,
  updatedAt: null,
  updatedBy: null,
};

/** The reason with what X said besides succeeding ("already gone from X"), as runs and the runs list show it. */
export function withWarnings(reason: string, warnings: readonly string[]): string {
  return warnings.length > 0 ? `${reason} (${warnings.join('; ')})` : reason;
}
