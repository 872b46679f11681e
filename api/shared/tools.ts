// Assistant tools as the tool server (api/mcp) serves them. Each is made from an operation's declaration
// (api/shared/operation.ts, api/shared/operation-adapters.ts): it calls the same use case as the operation's route,
// its input is the route's fields side by side, its output the use case's answer, given to the model as structured
// content plus a short text.
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
  run(call: ToolCall, input: z.output<Input>): Promise<Output>;
  /** A sentence or two for the model beside the structured output. */
  summary(output: Output): string;
}

/** A tool with its types erased, as slices list them. */
export type AnyTool = Tool<z.ZodType, unknown>;
