// Assistant tools, declared by each slice beside its routes (`Slice.tools`) and served by the tool server
// (api/mcp). A tool calls the same use case as its route: the input schema is the route's zod (path and body
// fields side by side), the output is the use case's answer, given to the model as structured content plus a
// short text.
import type { z } from 'zod';
import type { AssistantScope, Caller } from '../../domain/shared/caller.js';
import type { WriteRequest } from '../../commands/shared/write-pipeline.js';

/** Hints for clients (MCP tool annotations). */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a tool call knows besides its input. */
export interface ToolCall {
  /** The assistant acting for its user, in the connection's workspace (`caller.orgId`, never null here). */
  caller: Caller;
  orgId: string;
  /** For writes: tracing ids and the time (tools send no Idempotency-Key). */
  request: WriteRequest;
}

export interface Tool<Input extends z.ZodType = z.ZodType, Output = unknown> {
  /** snake_case, as the spec names it (`Tool: <name>`). */
  name: string;
  title: string;
  /** Written for a model: what it does, when to use it, what it will not do. */
  description: string;
  /** The one scope it needs; tools outside the connection's scopes are not listed and are refused. */
  scope: AssistantScope;
  /** The fields a model sends (an object schema): the route's query, path (except the workspace) and body fields. */
  input: Input;
  hints?: ToolHints;
  /**
   * True for the tools of operations (api/shared/operation.ts): they run the operation's access check (scope,
   * then the subscription's 402) themselves, so the tool server does not check the subscription again.
   */
  checksAccess?: boolean;
  run(call: ToolCall, input: z.output<Input>): Promise<Output>;
  /** A sentence or two for the model beside the structured output. */
  summary(output: Output): string;
}

/** A tool with its types erased, as slices list them. */
export type AnyTool = Tool<z.ZodType, unknown>;

/** Declares a tool, keeping its input and output types checked against each other. */
export function defineTool<Input extends z.ZodType, Output>(tool: Tool<Input, Output>): AnyTool {
  return tool;
}
