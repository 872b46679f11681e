// The assistant-tool server: MCP over Streamable HTTP at /mcp, calling the same use cases as the routes.
import type { Slice } from '../shared/slice.js';

export const mcpSlice: Slice = {
  name: 'mcp',
};
