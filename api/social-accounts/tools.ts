// The social accounts slice's assistant tool: list_social_accounts (read only).
import { z } from 'zod';
import { listSocialAccounts } from '../../projections/social-accounts/queries.js';
import type { SliceContext } from '../shared/slice.js';
import { defineTool, type AnyTool } from '../shared/tools.js';

export function socialAccountTools({ services }: SliceContext): readonly AnyTool[] {
  return [
    defineTool({
      name: 'list_social_accounts',
      title: 'List connected social accounts',
      description:
        'Lists the workspace’s connected social accounts (platform, name, handle, status), by platform then in ' +
        'connection order. Use it to know which platforms a draft can target.',
      scope: 'mcp:read',
      input: z.object({}).strict(),
      hints: { readOnlyHint: true, openWorldHint: false },
      run: async ({ caller, orgId }) => ({
        items: await listSocialAccounts(services.readModels, caller, { orgId }),
      }),
      summary: ({ items }) => `${items.length} connected account(s).`,
    }),
  ];
}
