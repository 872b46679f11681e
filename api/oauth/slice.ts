// The OAuth 2.1 authorization server for AI assistants (spec part 1, "Assistant-tool server (OAuth 2.1)"):
// clients, consent, codes and tokens, and the connected apps of the app API. The tool server (api/mcp) checks
// its bearer tokens through the `assistantTokens` service this slice provides.
import { migrationsOf, defineSlice } from '../shared/slice.js';
import { provide } from '../shared/provider.js';
import { browserSessions } from '../sign-in/sessions.js';
import { assistantTokens, DatabaseAssistantTokens, oauthDbOf } from './assistant-tokens.js';
import { clientSweepIntervalMs, sweepUnusedClients } from './clients.js';
import { connectedAppOperations, connectedAppRoutes } from './connected-apps.js';
import { assistantConnectionsEndProcess } from './membership-ends.js';
import { oauthRoutes, type OAuthServerOptions } from './routes.js';
import { oauthMigrations } from './store.js';

export { assistantTokens } from './assistant-tokens.js';

/**
 * The slice with its options; tests pass the seams (local metadata-document servers they may fetch, rate limits),
 * the service uses `oauthSlice`, which sets none.
 */
export function createOAuthSlice(options: OAuthServerOptions = {}) {
  return defineSlice({
    name: 'oauth',
    // The consent page is behind the browser session of the sign-in slice.
    requires: [browserSessions],
    provides: [provide(assistantTokens, { build: (ctx) => new DatabaseAssistantTokens(oauthDbOf(ctx)) })],
    migrations: migrationsOf(oauthMigrations),
    processManagers: [assistantConnectionsEndProcess],
    operations: [connectedAppOperations],
    // Routes, not operations: the authorization server's endpoints are public and speak OAuth's own shapes
    // (forms, redirects, HTML consent pages); disconnecting an app answers 204 without a body.
    routes: (ctx) => [oauthRoutes(ctx, options), connectedAppRoutes(oauthDbOf(ctx))],
    workers: [
      {
        // Unused clients (anonymous registrations, fetched documents nobody connected with) are deleted.
        name: 'oauth-client-sweep',
        async start(ctx) {
          const db = oauthDbOf(ctx);
          const sweep = () =>
            sweepUnusedClients(db)
              .then((deleted) => {
                if (deleted > 0) ctx.logger.info({ deleted }, 'unused OAuth clients deleted');
              })
              .catch((error: unknown) => ctx.logger.warn({ err: error }, 'OAuth client sweep failed'));
          let running = sweep();
          const timer = setInterval(() => {
            running = running.then(sweep);
          }, clientSweepIntervalMs);
          timer.unref();
          return {
            async stop() {
              clearInterval(timer);
              await running;
            },
          };
        },
      },
    ],
  });
}

export const oauthSlice = createOAuthSlice();
