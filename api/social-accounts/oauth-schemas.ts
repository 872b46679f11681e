// Request and response shapes of connecting accounts: oauth/start, the platform callbacks, Bluesky app
// passwords and LinkedIn page choices. Typed once here; the routes and the OpenAPI document use the same ones.
import { z } from '@hono/zod-openapi';
import { platforms } from '../../domain/shared/platforms.js';
import { blueskyIdentifierMessage, isBlueskyIdentifier } from '../../infra/connectors/bluesky/identifier.js';
import { orgParams } from '../shared/params.js';

export const platformParams = orgParams.extend({
  platform: z.enum(platforms).openapi({ param: { name: 'platform', in: 'path' }, example: 'x' }),
});

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048);

export const oauthStartBody = z
  .object({
    redirectUri: httpUrl.openapi({
      description: 'Where the app wants the user to land afterwards; echoed in the callback answer',
      example: 'https://app.example.org/settings/accounts',
    }),
    linkedinTarget: z
      .enum(['profile', 'page'])
      .optional()
      .openapi({ description: 'LinkedIn only: connect the member profile or pick company pages' }),
    // The identifier decides which servers we call next (its DID document, PDS and authorization server), so
    // only forms that cannot name an internal host pass: no did:web with a port, path, IP address or localhost.
    blueskyHandle: z
      .string()
      .trim()
      .min(3)
      .max(261)
      .refine((value) => isBlueskyIdentifier(value.replace(/^@/, '')), blueskyIdentifierMessage)
      .optional()
      .openapi({
        description:
          'Bluesky only, optional: the handle (or did:plc, or did:web on a public host name) whose server authorizes. ' +
          'Without it the authorization starts at the entryway, https://bsky.social, where the user names their account',
      }),
  })
  .strict()
  .openapi('OAuthStart');

export const oauthStartResult = z
  .object({
    authorizationUrl: z.url().openapi({ description: 'Send the user here to grant access' }),
    state: z.string().openapi({ description: 'Opaque and single use; the callback brings it back' }),
  })
  .openapi('OAuthStartResult');

/**
 * Platforms add parameters of their own (Google `scope`, TikTok `scopes`, Bluesky `iss`), so unknown keys are
 * passed to the connector rather than refused; `code` is optional because a denial comes without one.
 */
export const callbackQuery = z
  .object({
    state: z.string().min(1).max(1024),
    code: z.string().min(1).max(4096).optional(),
    iss: z.string().optional(),
    error: z.string().max(256).optional(),
    error_reason: z.string().max(256).optional(),
    error_description: z.string().max(2048).optional(),
  })
  .catchall(z.string());

/** LinkedIn's member callback (the spec's table): `code` is required. */
export const linkedinCallbackQuery = callbackQuery.extend({ code: z.string().min(1).max(4096) });

export const pageOptionSchema = z
  .object({
    id: z.string().openapi({ example: '2414183' }),
    name: z.string().openapi({ example: 'Acme Corp' }),
    vanityName: z.string().nullable().openapi({ example: 'acme-corp' }),
  })
  .openapi('LinkedInPage');

export const blueskyConnectBody = z
  .object({
    handle: z
      .string()
      .trim()
      .min(3)
      .max(253)
      .regex(/^@?[A-Za-z0-9.-]+$/, 'a handle such as alice.bsky.social')
      .openapi({ example: 'alice.bsky.social' }),
    appPassword: z.string().min(1).max(256).openapi({
      description: 'A Bluesky app password; a secret, never stored or echoed',
      format: 'password',
    }),
  })
  .strict()
  .openapi('BlueskyConnect');

export const linkedinPagesQuery = z.object({
  choice: z
    .string()
    .min(1)
    .max(256)
    .openapi({ param: { name: 'choice', in: 'query' }, description: 'From the linkedin-pages callback' }),
});

export const linkedinPagesResult = z.object({ pages: z.array(pageOptionSchema) }).openapi('LinkedInPages');

export const linkedinPagesBody = z
  .object({
    choice: z.string().min(1).max(256),
    organizationIds: z.array(z.string().min(1).max(256)).min(1).max(100),
  })
  .strict()
  .openapi('LinkedInPagesConnect');
