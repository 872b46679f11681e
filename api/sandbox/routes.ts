// The sandbox platforms' own pages, served by the service without a bearer: the authorize page a user "grants"
// on, and the post and account pages the sandbox's URLs point at. Only platforms in sandbox mode answer. Plain
// routes, not operations (api/shared/operation.ts): public (a platform's pages have no bearer), a redirect,
// and outside the OpenAPI document.
import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { platforms, type Platform } from '../../domain/shared/platforms.js';
import { NotFound, ValidationError, type ErrorDetail } from '../../domain/shared/errors.js';
import {
  defaultSandboxAccount,
  issueAuthorizationCode,
  SANDBOX_ACCOUNT_NAME,
  sandboxCallbackUrls,
  type SandboxTables,
} from '../../infra/connectors/sandbox/index.js';

export interface SandboxRoutesOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  publicBaseUrl: string;
  /** The platforms the sandbox serves (infra/connectors/registry.ts `sandboxPlatforms`). */
  sandboxPlatforms: ReadonlySet<Platform>;
  now?: () => Date;
}

/** 404 for anything that is not a platform in sandbox mode, as if the page did not exist. */
function sandboxPlatform(value: string, served: ReadonlySet<Platform>): Platform {
  const platform = (platforms as readonly string[]).includes(value) ? (value as Platform) : null;
  if (!platform || !served.has(platform)) throw new NotFound(`No sandbox for platform "${value}"`);
  return platform;
}

function redirectWith(target: string, params: Record<string, string>): string {
  const url = new URL(target);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

export function createSandboxRoutes(options: SandboxRoutesOptions): Hono {
  const app = new Hono();
  const db = options.db as Kysely<SandboxTables>;
  const now = options.now ?? (() => new Date());
  const base = options.publicBaseUrl.replace(/\/$/, '');

  // What a user does on the platform's consent page, without the page: grant (or deny with ?deny=1) at once.
  app.get('/v1/sandbox/oauth/:platform/authorize', async (c) => {
    const platform = sandboxPlatform(c.req.param('platform'), options.sandboxPlatforms);
    const query = c.req.query();
    const problems: ErrorDetail[] = [];
    const redirectUri = query.redirect_uri ?? '';
    // Checked before anything else, and never redirected to when wrong: no open redirect.
    if (!sandboxCallbackUrls(base, platform).includes(redirectUri))
      problems.push({ path: 'query.redirect_uri', message: "must be one of this service's callback URLs" });
    if (!query.state) problems.push({ path: 'query.state', message: 'is required' });
    if (!query.code_challenge || !/^[A-Za-z0-9_-]{43,128}$/.test(query.code_challenge))
      problems.push({ path: 'query.code_challenge', message: 'must be a base64url S256 challenge' });
    if (query.code_challenge_method !== 'S256')
      problems.push({ path: 'query.code_challenge_method', message: 'must be S256' });
    const hint = query.login_hint?.trim().replace(/^@/, '').toLowerCase();
    const account = query.account ?? (hint || defaultSandboxAccount(platform));
    if (!SANDBOX_ACCOUNT_NAME.test(account))
      problems.push({
        path: query.account !== undefined ? 'query.account' : 'query.login_hint',
        message: 'must be 1-64 letters, digits, "_", "." or "-"',
      });
    if (problems.length > 0)
      throw new ValidationError('Invalid sandbox authorization request', undefined, problems);
    const state = query.state!;
    if (query.deny !== undefined && query.deny !== '0' && query.deny !== 'false') {
      return c.redirect(
        redirectWith(redirectUri, {
          error: 'access_denied',
          error_description: 'The user denied the authorization request',
          state,
        }),
        302,
      );
    }
    const { code } = await issueAuthorizationCode(db, {
      platform,
      accountHandle: account,
      codeChallenge: query.code_challenge!,
      redirectUri,
      now: now(),
    });
    return c.redirect(redirectWith(redirectUri, { code, state }), 302);
  });

  app.get('/v1/sandbox/:platform/posts/:externalId', async (c) => {
    const platform = sandboxPlatform(c.req.param('platform'), options.sandboxPlatforms);
    const row = await db
      .selectFrom('sandbox_publications')
      .select(['external_id', 'account_external_id', 'url', 'text', 'status', 'ready_at', 'created_at'])
      .where('platform', '=', platform)
      .where('external_id', '=', c.req.param('externalId'))
      .where('status', '!=', 'deleted')
      .executeTakeFirst();
    if (!row) throw new NotFound('Post not found');
    const published = row.status === 'published' || Date.parse(row.ready_at) <= now().getTime();
    return c.json(
      {
        data: {
          platform,
          externalId: row.external_id,
          accountExternalId: row.account_external_id,
          url: row.url,
          text: row.text,
          status: published ? 'published' : 'pending',
          createdAt: row.created_at,
        },
      },
      200,
    );
  });

  app.get('/v1/sandbox/:platform/accounts/:externalId', async (c) => {
    const platform = sandboxPlatform(c.req.param('platform'), options.sandboxPlatforms);
    const row = await db
      .selectFrom('sandbox_accounts')
      .select(['external_id', 'handle', 'name', 'revoked_at'])
      .where('platform', '=', platform)
      .where('external_id', '=', c.req.param('externalId'))
      .executeTakeFirst();
    if (!row) throw new NotFound('Account not found');
    return c.json(
      {
        data: {
          platform,
          accountExternalId: row.external_id,
          accountHandle: row.handle,
          accountName: row.name,
          revoked: row.revoked_at !== null,
        },
      },
      200,
    );
  });

  return app;
}
