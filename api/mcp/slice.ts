// The assistant-tool server: MCP over Streamable HTTP at /mcp, calling the same use cases as the routes. Its
// tools are made from every slice's operations; its bearer tokens come from the authorization server (api/oauth).
import { assistantTokens } from '../oauth/assistant-tokens.js';
import { defineSlice } from '../shared/slice.js';
import { toolServerRoutes } from './tool-server.js';

export const mcpSlice = defineSlice({
  name: 'mcp',
  requires: [assistantTokens],
  routes: (ctx) => [
    toolServerRoutes({
      publicBaseUrl: ctx.publicBaseUrl,
      appOrigins: ctx.env.APP_ORIGINS,
      tokens: ctx.use(assistantTokens),
      roleOf: ctx.roleOf,
      tools: () => ctx.tools(),
      logger: ctx.logger,
      metrics: ctx.metrics,
      ...(ctx.services.now ? { now: ctx.services.now } : {}),
    }),
  ],
});
