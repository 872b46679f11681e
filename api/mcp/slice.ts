// The assistant-tool server: MCP over Streamable HTTP at /mcp, calling the same use cases as the routes. Its
// tools are every slice's own (`Slice.tools`); its bearer tokens come from the authorization server (api/oauth).
import { assistantTokensOf } from '../oauth/assistant-tokens.js';
import type { Slice } from '../shared/slice.js';
import { toolServerRoutes } from './tool-server.js';

export const mcpSlice: Slice = {
  name: 'mcp',
  routes: (ctx) => [
    toolServerRoutes({
      publicBaseUrl: ctx.publicBaseUrl,
      appOrigins: ctx.env.APP_ORIGINS,
      tokens: assistantTokensOf(ctx),
      roleOf: ctx.roleOf,
      tools: () => ctx.tools(),
      logger: ctx.logger,
      ...(ctx.services.now ? { now: ctx.services.now } : {}),
    }),
  ],
};
