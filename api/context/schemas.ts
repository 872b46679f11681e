// The context library's request and response shapes (spec part 2, "Context source and document" and "Context
// library"): the source, the document, the remote page, the sync body and answer, the document change, and
// oauth/start's body (the spec's, copied from the social accounts: linkedinTarget and blueskyHandle are refused
// for Notion with a 400 naming the field, docs/decisions.md "Context library").
import { z } from '@hono/zod-openapi';
import { documentLimits } from '../../domain/context/document.js';
import { contextSourceStatuses, contextSourceTypes, disclosures } from '../../domain/context/event-codec.js';
import { syncPageLimit } from '../../commands/context/context-use-cases.js';
import { canonicalUuid, orgParams } from '../shared/params.js';

export const contextSourceSchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid(),
    sourceType: z.enum(contextSourceTypes),
    status: z.enum(contextSourceStatuses).openapi({
      description:
        'connected → error (Notion refused the token: lastError says so) → connected (connect again, or a sync ' +
        'that works); connected or error → disconnected (DELETE); disconnected → connected (connect again)',
    }),
    externalWorkspaceId: z.string().nullable(),
    workspaceName: z.string().nullable(),
    lastSyncedAt: z.string().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ContextSource');

export const contextDocumentSchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid(),
    sourceId: z.uuid(),
    sourceType: z.enum(contextSourceTypes),
    externalId: z.string().openapi({ description: 'The Notion page id' }),
    title: z.string(),
    contentText: z.string().openapi({
      description: `The page as plain text, at most ${documentLimits.contentText} characters`,
    }),
    contentUrl: z.string().nullable(),
    enabled: z.boolean(),
    disclosure: z.enum(disclosures).openapi({
      description:
        'public: enabled public documents feed post generation; private (the default of a new document) and ' +
        'restricted never reach generated text',
    }),
    syncedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ContextDocument');

export const remotePageSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    url: z.string().nullable(),
    lastEditedTime: z.string().nullable(),
  })
  .openapi('ContextRemotePage');

export const sourceParams = orgParams.extend({
  sourceId: canonicalUuid().openapi({ param: { name: 'sourceId', in: 'path' } }),
});
export const documentParams = orgParams.extend({
  documentId: canonicalUuid().openapi({ param: { name: 'documentId', in: 'path' } }),
});

export const remotePagesQuery = z
  .object({
    query: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: 'Words of the title (Notion search); all shared pages without it' }),
  })
  .strict();

export const syncBody = z
  .object({
    pageIds: z
      .array(z.string().max(64))
      .min(1)
      .max(syncPageLimit)
      .openapi({ description: `1 to ${syncPageLimit} Notion page ids (with or without dashes)` }),
  })
  .strict()
  .openapi('ContextSync');

export const syncResult = z
  .object({
    synced: z.array(contextDocumentSchema),
    failed: z.array(
      z.object({
        pageId: z.string(),
        error: z.string().openapi({
          description:
            'page_not_shared (Notion does not share the page with the integration), notion_token_revoked, ' +
            'notion_rate_limited, notion_unavailable',
        }),
      }),
    ),
  })
  .openapi('ContextSyncResult');

export const updateDocumentBody = z
  .object({
    enabled: z.boolean().optional(),
    disclosure: z.enum(disclosures).optional(),
  })
  .strict()
  .openapi('UpdateContextDocument');

export const notionStartBody = z
  .object({
    redirectUri: z.url().max(2048).openapi({
      description: 'Where the app wants the user back after the callback: on PUBLIC_BASE_URL or APP_ORIGINS',
    }),
    linkedinTarget: z
      .enum(['profile', 'page'])
      .optional()
      .openapi({ description: 'Not for Notion: refused with 400 (the field is the social accounts’)' }),
    blueskyHandle: z
      .string()
      .max(300)
      .optional()
      .openapi({ description: 'Not for Notion: refused with 400 (the field is the social accounts’)' }),
  })
  .strict()
  .openapi('ContextOAuthStart');

export const notionStartResult = z
  .object({
    authorizationUrl: z.url(),
    state: z
      .string()
      .openapi({ description: 'Single use, 10 minutes; Notion brings it back to the callback' }),
  })
  .openapi('ContextOAuthStartResult');
