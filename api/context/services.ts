// What the context library's use cases need, built once per runtime from the slice's context: the Notion gateway
// (live on @notionhq/client when NOTION_CLIENT_ID is set, the sandbox Notion otherwise), the sealed token store,
// the pending authorizations, and the addresses OAuth uses.
import type { ContextDeps } from '../../commands/context/context-use-cases.js';
import { LiveNotion } from '../../infra/notion/live.js';
import type { NotionGateway } from '../../infra/notion/port.js';
import { SandboxNotion } from '../../infra/notion/sandbox.js';
import type { NotionEnv } from '../../infra/notion/settings.js';
import { ContextOAuthStates, ContextTokenStore } from '../../infra/notion/stores.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { SliceContext } from '../shared/slice.js';

/** Where Notion sends the user back (spec part 1's callback table). */
export const notionCallbackPath = '/v1/context/oauth/notion/callback';
/** The sandbox Notion's consent page, served by this service in the embedded default. */
export const sandboxNotionConsentPath = '/v1/sandbox/notion/authorize';

export function notionGatewayOf(env: NotionEnv, publicBaseUrl: string): NotionGateway {
  if (env.NOTION_CLIENT_ID && env.NOTION_CLIENT_SECRET)
    return new LiveNotion({
      clientId: env.NOTION_CLIENT_ID,
      clientSecret: env.NOTION_CLIENT_SECRET,
      baseUrl: env.NOTION_API_BASE_URL,
    });
  return new SandboxNotion(`${publicBaseUrl}${sandboxNotionConsentPath}`);
}

const built = new WeakMap<object, ContextDeps>();

export function contextDepsOf(ctx: SliceContext<never, PlatformEnv & NotionEnv>): ContextDeps {
  const cached = built.get(ctx);
  if (cached) return cached;
  const services = ctx.services;
  const publicBaseUrl = services.publicBaseUrl.replace(/\/$/, '');
  const deps: ContextDeps = {
    commands: services.commands,
    idempotency: services.idempotency,
    readModels: services.readModels,
    notion: notionGatewayOf(ctx.env, publicBaseUrl),
    tokens: new ContextTokenStore(services.readModels, services.tokenCipher),
    oauthStates: new ContextOAuthStates(services.readModels),
    redirectOrigins: new Set([new URL(publicBaseUrl).origin, ...services.env.APP_ORIGINS]),
    callbackUrl: `${publicBaseUrl}${notionCallbackPath}`,
    logger: ctx.logger,
  };
  built.set(ctx, deps);
  return deps;
}
