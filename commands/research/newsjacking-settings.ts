// Newsjacking settings use cases (issue 31, part 3), the workspace settings' shape (commands/shared/workspace-
// settings.ts): read them (every member; mcp:read for assistants) and save them (owners and admins; posts:write for
// assistants). One small stream per workspace, `newsjackingSettings-<orgId>`, replayed on read.
import {
  newsjackingSettingsCategory,
  newsjackingSettingsDecider,
  newsjackingSettingsView,
  type NewsjackingSettingsChanges,
} from '../../domain/research/newsjacking-settings.js';
import { settingsReading, workspaceSettings, type SettingsSave } from '../shared/workspace-settings.js';

const settings = workspaceSettings({
  category: newsjackingSettingsCategory,
  decider: newsjackingSettingsDecider,
  view: newsjackingSettingsView,
  command: (save: SettingsSave<NewsjackingSettingsChanges>) => ({
    type: 'UpdateNewsjackingSettings' as const,
    ...save,
  }),
  scope: 'newsjacking-settings',
});

/** The research reads' rule: every member; mcp:read for assistants. */
export const researchReading = settingsReading;
export const newsjackingSettingsStream = settings.streamOf;
/** The workspace's newsjacking settings as saved, the defaults when none were. */
export const newsjackingSettingsOf = settings.settingsOf;
/** Tool: get_newsjacking_settings. */
export const getNewsjackingSettings = settings.get;
/** Tool: update_newsjacking_settings. Omitted fields stay; lists (feeds too) replace the saved ones. */
export const updateNewsjackingSettings = settings.update;
