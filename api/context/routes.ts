// The context library's routes that are not operations: Notion's OAuth callback (public: the state names the
// starter; spec part 1, GET /v1/context/oauth/notion/callback) and, in the embedded default, the sandbox Notion's
// consent page (public, a redirect: it grants at once, or denies with ?deny=1, and sends the browser on to the
// callback; never to any other address, so it is no open redirect).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { completeNotionOAuth, type ContextDeps } from '../../commands/context/context-use-cases.js';
import { ValidationError } from '../../domain/shared/errors.js';
import { sandboxNotionCode } from '../../infra/notion/sandbox.js';
import type { AppEnv } from '../platform/app-env.js';
import { dataOf, jsonResponse } from '../platform/responses.js';
import { forgetBrowserBinding, startedInThisBrowser } from './browser-binding.js';
import { contextSourceSchema } from './schemas.js';
import { notionCallbackPath, sandboxNotionConsentPath } from './services.js';

const callbackQuery = z.object({
  state: z
    .string()
    .min(1)
    .max(1024)
    .openapi({ param: { name: 'state', in: 'query' }, description: 'The state oauth/start answered' }),
  code: z
    .string()
    .min(1)
    .max(1024)
    .openapi({ param: { name: 'code', in: 'query' } }),
});

const callbackResult = z
  .discriminatedUnion('status', [
    z.object({
      status: z.literal('connected'),
      sourceType: z.literal('notion'),
      source: contextSourceSchema,
      redirectUri: z.string(),
    }),
    z.object({
      status: z.enum(['denied', 'error']),
      sourceType: z.literal('notion'),
      error: z.string().openapi({
        description:
          '`access_denied` (the user said no), `invalid_state` (unknown, expired or used), `invalid_request`, ' +
          '`browser_mismatch` (started in another browser: only the one that called oauth/start may finish it), ' +
          '`not_allowed` (the starter can no longer manage settings), `notion_authorization_failed`, ' +
          '`notion_unavailable`, `notion_rate_limited`',
      }),
      errorDescription: z.string().nullable(),
      redirectUri: z.string().nullable(),
    }),
  ])
  .openapi('ContextOAuthCallbackResult');

const callbackRoute = createRoute({
  method: 'get',
  path: notionCallbackPath,
  operationId: 'completeNotionOAuth',
  security: [],
  tags: ['oauth'],
  summary: 'Where Notion sends the user back: the source is connected (its token sealed), or why not',
  request: { query: callbackQuery },
  responses: {
    200: jsonResponse(dataOf(callbackResult), 'Connected, denied, or an error with its stable code'),
  },
});

export function contextRoutes(deps: ContextDeps, options: { now?: () => Date }) {
  const now = () => options.now?.() ?? new Date();
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(
      callbackRoute,
      async (c) => {
        const query = c.req.valid('query');
        const startedHere = startedInThisBrowser(c, query.state);
        const outcome = await completeNotionOAuth(
          { ...deps, logger: c.get('logger') ?? deps.logger },
          { state: query.state, code: query.code, startedHere },
          { correlationId: c.get('requestId'), now: now().toISOString() },
        );
        if (startedHere) forgetBrowserBinding(c, query.state);
        c.header('Cache-Control', 'no-store');
        return c.json({ data: outcome }, 200);
      },
      // Notion's denial (`error=access_denied`, no code) and a malformed query are answered in the same shape.
      (result, c: Context<AppEnv>) => (result.success ? undefined : refused(c)),
    );

    async function refused(c: Context<AppEnv>) {
      const state = c.req.query('state');
      const error = c.req.query('error');
      if (state && error) {
        const outcome = await completeNotionOAuth(
          deps,
          {
            state,
            startedHere: startedInThisBrowser(c, state),
            error: error.slice(0, 100),
            errorDescription: c.req.query('error_description')?.slice(0, 500),
          },
          { correlationId: c.get('requestId'), now: now().toISOString() },
        );
        if (startedInThisBrowser(c, state)) forgetBrowserBinding(c, state);
        return c.json({ data: outcome }, 200);
      }
      return c.json(
        {
          data: {
            status: 'error' as const,
            sourceType: 'notion' as const,
            error: 'invalid_request',
            errorDescription: 'The callback carries no state or no code; start connecting Notion again',
            redirectUri: null,
          },
        },
        200,
      );
    }

    if (deps.notion.mode !== 'sandbox') return;
    // The sandbox Notion's consent: what a user does on Notion's page, without the page.
    app.get(sandboxNotionConsentPath, (c) => {
      const redirectUri = c.req.query('redirect_uri') ?? '';
      const state = c.req.query('state') ?? '';
      const problems = [];
      if (redirectUri !== deps.callbackUrl)
        problems.push({ path: 'query.redirect_uri', message: "must be this service's Notion callback URL" });
      if (state === '' || state.length > 1024) problems.push({ path: 'query.state', message: 'is required' });
      if (problems.length > 0)
        throw new ValidationError('Invalid sandbox authorization request', undefined, problems);
      const target = new URL(redirectUri);
      const deny = c.req.query('deny');
      if (deny !== undefined && deny !== '0' && deny !== 'false') {
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('state', state);
      } else {
        target.searchParams.set('code', sandboxNotionCode);
        target.searchParams.set('state', state);
      }
      c.header('Cache-Control', 'no-store');
      return c.redirect(target.toString(), 302);
    });
  };
}
