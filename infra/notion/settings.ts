// The context library's Notion variables (issue 31), read by the Notion adapters of this folder and declared by
// the context slice (api/context/slice.ts). Without a client id the sandbox Notion answers (the embedded default).
import { z } from 'zod';
import { defineSettings, optionalString, type SettingsOf } from '../config/env.js';
import { isLoopbackHostname } from '../http/loopback.js';

export const notionSettings = defineSettings(
  {
    /** Notion public integration's OAuth client id; unset: the sandbox Notion (no network). */
    NOTION_CLIENT_ID: optionalString,
    NOTION_CLIENT_SECRET: optionalString,
    /** Notion's API address (tests point it at a locally served Notion); https, or http on loopback only. */
    NOTION_API_BASE_URL: z.string().default('https://api.notion.com'),
  },
  (env, ctx) => {
    if (Boolean(env.NOTION_CLIENT_ID) !== Boolean(env.NOTION_CLIENT_SECRET))
      ctx.addIssue({
        code: 'custom',
        path: [env.NOTION_CLIENT_ID ? 'NOTION_CLIENT_SECRET' : 'NOTION_CLIENT_ID'],
        message: 'NOTION_CLIENT_ID and NOTION_CLIENT_SECRET are set together',
      });
    const url = URL.canParse(env.NOTION_API_BASE_URL) ? new URL(env.NOTION_API_BASE_URL) : null;
    if (
      !url ||
      !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname)))
    )
      ctx.addIssue({
        code: 'custom',
        path: ['NOTION_API_BASE_URL'],
        message: 'must be an https URL (http only on localhost)',
      });
  },
);

export type NotionEnv = SettingsOf<typeof notionSettings>;
