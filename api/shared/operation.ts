// One declaration per operation (issue 25): its name (the operationId, and the tool name where the spec names a
// tool), method, path, the schemas of its path, query, body and answer, who may call it (role permission,
// assistant scope, what it needs of the subscription as a function of its input), whether it writes, the tool's
// words for a model, and the use case it runs. From it the REST route and the assistant tool are generated
// (api/shared/operation-adapters.ts); both run the same access check before the use case, and both rewrite the
// use case's error details, which name fields of the input, into where the caller sent them (`body.`/`query.` for
// REST, `arguments.` for tools).
import type { z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AccessKind } from '../../commands/billing/access.js';
import type { Written, WriteRequest } from '../../commands/shared/write-pipeline.js';
import type { JsonText } from '../../domain/shared/json-text.js';
import type { AssistantScope, Caller } from '../../domain/shared/caller.js';
import type { Permission } from '../../domain/workspaces/roles.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { AppEnv } from '../platform/app-env.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { ErrorStatus } from '../platform/errors.js';
import type { AnyService } from './service.js';
import type { SliceContext } from './slice-context.js';
import type { ToolHints } from './tools.js';

export type OperationMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** An object schema, as path parameters, queries and bodies are. */
export type ObjectSchema = z.ZodObject;

/** A query: an object schema, or one parsed further (a list query, api/platform/paging.ts's `schema`). */
export type QuerySchema = ObjectSchema | z.ZodPipe<ObjectSchema, z.ZodType>;

/**
 * A body: an object schema, or any other JSON schema (e.g. a discriminated union) where the operation has no
 * tool or its tool declares its own `input`.
 */
export type BodySchema = z.ZodType;

type OutputOf<S> = S extends z.ZodType ? z.output<S> : Record<never, never>;

/** What the use case gets: the path parameters, the query and the body fields side by side. */
export type OperationInput<Params, Query, Body> = OutputOf<Params> & OutputOf<Query> & OutputOf<Body>;

/**
 * What a call needs of the workspace's subscription (402): `write` (refused while the workspace is read-only),
 * `paid` (also refused without a usable subscription) or null (nothing: reads, billing, leaving).
 */
export type BillingRule<Input> = AccessKind | null | ((input: Input, caller: Caller) => AccessKind | null);

export interface OperationAccess<Input> {
  /**
   * Workspace operations (the default) need a workspace-scoped token for the `{orgId}` in the path; the others
   * only a signed-in user.
   */
  workspace?: boolean;
  /**
   * The role permission, checked before the request is read. A list: any one of them (the use case checks which
   * one the input needs, e.g. approving in a PATCH).
   */
  permission?: Permission | readonly Permission[];
  /** The assistant scope; operations with a tool need one. */
  scope?: AssistantScope;
  /** Default: `write` for writes of a workspace, null for reads. */
  billing?: BillingRule<Input>;
  /**
   * REST: the caller is registered as a user on their first call if an external identity provider's token
   * names them (api/shared/known-user.ts), after the request is validated; for the operations a user reaches
   * before any workspace (their profile, creating a workspace, accepting an invitation).
   */
  knownUser?: boolean;
}

/**
 * The tool's side of an operation (MCP): what a model reads. Its input is the operation's, minus `orgId`; its
 * output the operation's, or what `answer` makes of it.
 */
export interface OperationTool<Output, Deps = unknown, Input = unknown, ToolOutput = Output> {
  title: string;
  /** Written for a model: what it does, when to use it, what it will not do. */
  description: string;
  hints?: ToolHints;
  /** Descriptions of the path parameters as the tool's arguments (REST documents them in the path). */
  describe?: Readonly<Record<string, string>>;
  /**
   * The tool's arguments where they are not the REST request's fields (e.g. a boolean where the query has the
   * text `true`): a schema whose output is the operation's input without the workspace. Default: the path
   * parameters but the workspace, the query and the body fields.
   */
  input?: z.ZodType<Omit<Input, 'orgId'>>;
  /**
   * Where the tool tells a model more than the route answers (the same use case, more beside it): the tool's
   * output from the operation's, e.g. the credit balance beside a page of debits. Absent: the operation's output.
   */
  answer?(deps: Deps, call: OperationCall, input: Input, output: Output): Promise<ToolOutput>;
  /** A sentence or two for the model beside the structured output. */
  summary(output: ToolOutput): string;
}

/** What a use case gets besides its input: who calls, in which workspace, and (for writes) the request. */
export interface OperationCall {
  caller: Caller;
  request: WriteRequest;
  /** The request's logger (bound to its id) for REST calls; undefined for tool calls. */
  logger?: Logger;
  /** Aborted when a REST caller goes away (for calls to platforms worth abandoning then). */
  signal?: AbortSignal;
}

interface OperationBase<Deps, Params, Query, Body, Output, ToolOutput = Output> {
  /** The operationId; the tool's name where the operation has a tool (snake_case, as the spec names it). */
  name: string;
  method: OperationMethod;
  /** OpenAPI form: `/v1/orgs/{orgId}/marketing/tags/{tagId}`. */
  path: string;
  tags: string[];
  summary: string;
  description?: string;
  params?: Params;
  query?: Query;
  body?: Body;
  /** False for a body the spec marks optional (absent, or a JSON object). */
  bodyRequired?: boolean;
  /**
   * What a REST call's Idempotency-Key is bound to, when not the whole body: a secret in the body (a password)
   * is left out, so no idempotency record keeps even a digest of it.
   */
  idempotencyBody?(body: OutputOf<Body>): unknown;
  /** The answer's schema (inside the `{ data }` envelope); null: the success answer has no body. */
  output: z.ZodType<Output> | null;
  /** Description of the success answer in the OpenAPI document. */
  outputDescription: string;
  /** 200 unless the operation creates something the spec answers with 201. */
  status?: 200 | 201;
  /** Every error status the OpenAPI document lists for it. */
  errors: readonly ErrorStatus[];
  access: OperationAccess<OperationInput<Params, Query, Body>>;
  tool?: OperationTool<Output, Deps, OperationInput<Params, Query, Body>, ToolOutput>;
  /** REST-only middleware after the access check and before validation. */
  middleware?: readonly MiddlewareHandler<AppEnv>[];
}

export interface WriteOperation<Deps, Params, Query, Body, Output, ToolOutput = Output> extends OperationBase<
  Deps,
  Params,
  Query,
  Body,
  Output,
  ToolOutput
> {
  kind: 'write';
  run(deps: Deps, call: OperationCall, input: OperationInput<Params, Query, Body>): Promise<Written<Output>>;
}

export interface ReadOperation<Deps, Params, Query, Body, Output, ToolOutput = Output> extends OperationBase<
  Deps,
  Params,
  Query,
  Body,
  Output,
  ToolOutput
> {
  kind: 'read';
  run(deps: Deps, call: OperationCall, input: OperationInput<Params, Query, Body>): Promise<Output>;
  /**
   * REST only, optional: the whole answer (`{ data }` envelope included) as JSON already written, e.g. stored
   * JSON passed on as it is where parsing and serialising it again would cost; the route sends it instead of
   * calling `run`. The tool still calls `run`: both must answer the same value.
   */
  runJson?(
    deps: Deps,
    call: OperationCall,
    input: OperationInput<Params, Query, Body>,
  ): Promise<JsonText<{ data: Output }>>;
}

export type Operation<
  Deps,
  Params extends ObjectSchema | undefined = ObjectSchema | undefined,
  Query extends QuerySchema | undefined = QuerySchema | undefined,
  Body extends BodySchema | undefined = BodySchema | undefined,
  Output = unknown,
  ToolOutput = Output,
> =
  | WriteOperation<Deps, Params, Query, Body, Output, ToolOutput>
  | ReadOperation<Deps, Params, Query, Body, Output, ToolOutput>;

/** An operation with its input and output types erased, as a slice lists them. */
export type AnyOperation<Deps = unknown> = Operation<Deps>;

/**
 * Declares operations whose use cases need `Deps`: `const operation = operationsWith<TagDeps>();` then
 * `operation({ name, method, path, …, run })` keeps each declaration's schemas and use case checked against
 * each other.
 */
export function operationsWith<Deps>() {
  return function operation<
    Params extends ObjectSchema | undefined,
    Query extends QuerySchema | undefined,
    Body extends BodySchema | undefined,
    Output,
    ToolOutput = Output,
  >(declaration: Operation<Deps, Params, Query, Body, Output, ToolOutput>): AnyOperation<Deps> {
    return declaration;
  };
}

/** A slice's operations and how its use cases' dependencies are built from the runtime (once per runtime). */
export interface OperationGroup<Deps = unknown, E extends PlatformEnv = PlatformEnv> {
  /** `E`: the environment the dependencies read; the slice listing the group lists those settings. */
  deps(ctx: SliceContext<AnyService, E>): Deps;
  operations: readonly AnyOperation<Deps>[];
}

/** A slice's operations, as `Slice.operations` lists them. */
export function operationGroup<Deps, E extends PlatformEnv = PlatformEnv>(
  deps: (ctx: SliceContext<AnyService, E>) => Deps,
  operations: readonly AnyOperation<Deps>[],
): OperationGroup<unknown, E> {
  return { deps, operations };
}
