// What the runtime makes of an operation declaration (api/shared/operation.ts): its hono route with the OpenAPI
// entry, and its assistant tool. Both run `checkOperationAccess` before the use case (role or scope, then what
// the call needs of the subscription), and both name the fields of a refused input where the caller sent them.
import { createRoute, z, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { BillingAccess } from '../../commands/billing/access.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { AppError, InvalidFields, ValidationError } from '../../domain/shared/errors.js';
import type { Permission } from '../../domain/workspaces/roles.js';
import { callerOf } from '../auth/caller.js';
import { authenticate, bearerSecurity, requirePermission, requireWorkspace } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses, inputPathOf } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse, jsonTextResponse } from '../platform/responses.js';
import { ensureKnownUser } from './known-user.js';
import { canonicalUuid, idempotencyHeaders } from './params.js';
import type { AnyOperation, OperationCall, OperationGroup, QuerySchema } from './operation.js';
import type { SliceContext } from './slice-context.js';
import type { AnyTool, Tool } from './tools.js';
import { answered, writeRequest } from './write.js';

/** The runtime's billing policy, when the billing slice made one (looked up per call). */
export type BillingPolicyOf = () => BillingAccess | undefined;

function permissionsOf(op: AnyOperation): readonly Permission[] {
  const permission = op.access.permission;
  if (permission === undefined) return [];
  return typeof permission === 'string' ? [permission] : permission;
}

/**
 * The one access check of every operation, REST or tool, before its use case (domain/shared/caller.ts's
 * `authorize`, as use cases call it): the caller's workspace, one of the operation's permissions in its role, for
 * an assistant the operation's scope; then the subscription must allow what the call needs (402). The REST route checks the role as middleware too, so a role that may not call the
 * operation is refused before its request is read.
 */
export async function checkOperationAccess(
  op: AnyOperation,
  caller: Caller,
  input: Record<string, unknown>,
  billing: BillingAccess | undefined,
): Promise<void> {
  const orgId = op.access.workspace === false ? undefined : input.orgId;
  authorize(caller, {
    ...(typeof orgId === 'string' ? { orgId } : {}),
    ...(op.access.permission !== undefined ? { permission: op.access.permission } : {}),
    scope: op.access.scope ?? null,
  });
  const kind = billingKindOf(op, input, caller);
  if (kind !== null && billing && caller.orgId !== null) await billing.check(caller.orgId, kind);
}

/** What the call needs of the workspace's subscription; reads and operations outside a workspace need nothing. */
export function billingKindOf(
  op: AnyOperation,
  input: Record<string, unknown>,
  caller: Caller,
): 'write' | 'paid' | null {
  if (op.access.workspace === false) return null;
  const rule = op.access.billing;
  if (rule === undefined) return op.kind === 'write' ? 'write' : null;
  return typeof rule === 'function' ? rule(input, caller) : rule;
}

/** Where a refused input's fields were sent: the REST request's part, or the tool's arguments. */
type Locate = (field: string) => string;

class LocatedFields extends ValidationError {}

/**
 * The use case's error with its details naming where the caller sent each field. Use cases name fields of their
 * input (`title`, `screenshot.url`; the domain's InvalidFields names its own, mapped by inputPathOf); the
 * adapter knows where each top-level field came from.
 */
function locateDetails(error: unknown, locate: Locate): unknown {
  if (!(error instanceof AppError) || error.details === undefined) return error;
  const details = error.details.map((d) => {
    const path = error instanceof InvalidFields ? inputPathOf(d.path) : d.path;
    return { path: locate(path), message: d.message };
  });
  // Named where the caller sent them already: not the domain's terms any more (errors.ts maps only those).
  if (error instanceof InvalidFields) return new LocatedFields(error.message, error.code, details);
  return error.withDetails(details);
}

async function runLocated<T>(locate: Locate, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw locateDetails(error, locate);
  }
}

/** The fields of an object schema, or of the object a list query is parsed from. */
function shapeOf(schema: QuerySchema | undefined): z.ZodRawShape {
  if (schema instanceof z.ZodPipe) return schema.in.shape;
  return schema?.shape ?? {};
}

/**
 * Details that name where they are already: a part of the request or the tool call, or the server's own
 * configuration (`env.X_CLIENT_ID`: a setting the operator must add, not a field of the input).
 */
const located = /^(body|query|param|arguments|env)\./;

/** Where each top-level input field of a REST call came from. */
function restLocator(op: AnyOperation): Locate {
  const params = new Set(Object.keys(shapeOf(op.params)));
  const query = new Set(Object.keys(shapeOf(op.query)));
  return (path) => {
    if (located.test(path)) return path;
    const top = path.split('.')[0] ?? path;
    const where = params.has(top) ? 'param' : query.has(top) ? 'query' : 'body';
    return path === '' ? where : `${where}.${path}`;
  };
}

const toolLocator: Locate = (path) =>
  located.test(path) ? path : path === '' ? 'arguments' : `arguments.${path}`;

/** The OpenAPI route of an operation, with its access middleware. */
export function routeOf(op: AnyOperation): RouteConfig {
  const middleware: MiddlewareHandler<AppEnv>[] = [authenticate()];
  if (op.access.workspace !== false) middleware.push(requireWorkspace());
  const permissions = permissionsOf(op);
  if (permissions.length > 0)
    middleware.push(async (c, next) => {
      requirePermission(c, ...permissions);
      await next();
    });
  middleware.push(...(op.middleware ?? []));
  const body = op.body
    ? op.bodyRequired === false
      ? ({ required: false, content: { 'application/json': { schema: op.body } } } as const)
      : jsonBody(op.body)
    : undefined;
  const request: RouteConfig['request'] = {
    ...(op.params ? { params: op.params } : {}),
    ...(op.query ? { query: op.query } : {}),
    ...(op.kind === 'write' ? { headers: idempotencyHeaders } : {}),
    ...(body ? { body } : {}),
  };
  const status = op.status ?? 200;
  return createRoute({
    middleware,
    security: bearerSecurity,
    method: op.method,
    path: op.path,
    operationId: op.name,
    tags: op.tags,
    summary: op.summary,
    ...(op.description !== undefined ? { description: op.description } : {}),
    request,
    responses: {
      [status]:
        op.output === null
          ? { description: op.outputDescription }
          : jsonResponse(dataOf(op.output), op.outputDescription),
      ...errorResponses(...op.errors),
    },
  });
}

/** The route installer of a bound operation. */
function installRoute(op: AnyOperation, deps: unknown, ctx: SliceContext, billing: BillingPolicyOf) {
  const route = routeOf(op);
  const locate = restLocator(op);
  const status = op.status ?? 200;
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(route, async (c: Context<AppEnv>) => {
      // The route's validators ran (createRoute's request): what they kept is the operation's input.
      const validated = c.req as unknown as { valid(target: string): Record<string, unknown> | undefined };
      const params = op.params ? (validated.valid('param') ?? {}) : {};
      const query = op.query ? (validated.valid('query') ?? {}) : {};
      const body = op.body ? (validated.valid('json') ?? {}) : undefined;
      const input = { ...params, ...query, ...body };
      if (op.access.knownUser) await ensureKnownUser(c, ctx.services);
      const caller = callerOf(c);
      await checkOperationAccess(op, caller, input, billing());
      const keyed = body !== undefined && op.idempotencyBody ? op.idempotencyBody(body) : body;
      const call: OperationCall = {
        caller,
        request: writeRequest(c, ctx.services, keyed, status),
        logger: c.get('logger'),
        signal: c.req.raw.signal,
      };
      if (op.kind === 'write') {
        const written = await runLocated(locate, () => op.run(deps, call, input));
        const answer = answered(c, written);
        return op.output === null ? c.body(null, status) : c.json({ data: answer }, status);
      }
      // The answer's JSON as the operation writes it, where it does (REST only; the tool calls `run`).
      const runJson = op.runJson?.bind(op);
      if (runJson)
        return jsonTextResponse(c, await runLocated(locate, () => runJson(deps, call, input)), status);
      const output = await runLocated(locate, () => op.run(deps, call, input));
      return op.output === null ? c.body(null, status) : c.json({ data: output }, status);
    });
  };
}

/**
 * The tool's input schema: the tool's own `input` where it declares one, else the operation's path parameters
 * (but the workspace), query and body fields. A list query (a parsed query) or a body that is not an object is
 * the tool's input only alone.
 */
export function toolInputOf(op: AnyOperation): z.ZodType {
  if (op.tool?.input) return op.tool.input;
  const describe = op.tool?.describe ?? {};
  const params: Record<string, z.ZodType> = {};
  for (const name of Object.keys(shapeOf(op.params))) {
    if (name === 'orgId') continue;
    const description = describe[name];
    params[name] = description === undefined ? canonicalUuid() : canonicalUuid().describe(description);
  }
  const alone = Object.keys(params).length === 0 && (op.body === undefined || op.query === undefined);
  if (op.query instanceof z.ZodPipe || (op.body !== undefined && !(op.body instanceof z.ZodObject))) {
    if (!alone) throw new Error(`operation ${op.name}: its tool needs its own input`);
    return (op.body ?? op.query)!;
  }
  const body = op.body;
  const query = op.query;
  const base = body ?? query;
  const extra = body && query ? { ...shapeOf(query), ...params } : params;
  if (base) return base.extend(extra);
  return z.object(params).strict();
}

/** The assistant tool of a bound operation. */
function toolOf(op: AnyOperation, deps: unknown, billing: BillingPolicyOf): AnyTool {
  const meta = op.tool;
  const scope = op.access.scope;
  if (!meta || !scope) throw new Error(`operation ${op.name} has no tool`);
  const tool: Tool<z.ZodType, unknown> = {
    name: op.name,
    title: meta.title,
    description: meta.description,
    scope,
    input: toolInputOf(op),
    ...(meta.hints ? { hints: meta.hints } : {}),
    async run({ caller, orgId, request }, args) {
      // Every tool input is an object schema's, or a list query's parsed object.
      const input = { ...(typeof args === 'object' && args !== null ? args : {}), orgId };
      await checkOperationAccess(op, caller, input, billing());
      const call: OperationCall = { caller, request };
      const output =
        op.kind === 'write'
          ? (await runLocated(toolLocator, () => op.run(deps, call, input))).output
          : await runLocated(toolLocator, () => op.run(deps, call, input));
      const answer = meta.answer?.bind(meta);
      if (!answer) return output;
      return runLocated(toolLocator, () => answer(deps, call, input, output));
    },
    summary: (output) => meta.summary(output),
  };
  return tool;
}

/** A slice's operation groups, bound to the runtime: their route installers and their tools. */
export function bindOperations(
  groups: readonly OperationGroup[],
  ctx: SliceContext,
  billing: BillingPolicyOf,
): { routes: ((app: OpenAPIHono<AppEnv>) => void)[]; tools: AnyTool[] } {
  const routes: ((app: OpenAPIHono<AppEnv>) => void)[] = [];
  const tools: AnyTool[] = [];
  for (const group of groups) {
    const deps = group.deps(ctx);
    for (const op of group.operations) {
      routes.push(installRoute(op, deps, ctx, billing));
      if (op.tool) tools.push(toolOf(op, deps, billing));
    }
  }
  return { routes, tools };
}
