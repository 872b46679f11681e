// Engagement settings use cases (issue 30, part 1), the workspace settings' shape (commands/shared/workspace-
// settings.ts): read them (every member; mcp:read for assistants) and save them (owners and admins; posts:write for
// assistants). One small stream per workspace, `engagementSettings-<orgId>`; `engagementSettingsOf` is what the
// inbox's refresh reads them with.
import {
  engagementSettingsCategory,
  engagementSettingsDecider,
  engagementSettingsView,
  type EngagementSettingsChanges,
} from '../../domain/engagement/settings.js';
import { workspaceSettings, type SettingsSave } from '../shared/workspace-settings.js';

const settings = workspaceSettings({
  category: engagementSettingsCategory,
  decider: engagementSettingsDecider,
  view: engagementSettingsView,
  command: (save: SettingsSave<EngagementSettingsChanges>) => ({
    type: 'UpdateEngagementSettings' as const,
    ...save,
  }),
  scope: 'engagement-settings',
});

export const engagementSettingsStream = settings.streamOf;
/** The workspace's engagement settings as saved, the defaults when none were (for the inbox's refresh). */
export const engagementSettingsOf = settings.settingsOf;
/** Tool: get_engagement_settings. */
export const getEngagementSettings = settings.get;
/** Tool: update_engagement_settings. Omitted fields stay; lists (feeds too) replace the saved ones. */
export const updateEngagementSettings = settings.update;
