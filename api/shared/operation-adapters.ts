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
import { errorResponses, requestPathOf } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { canonicalUuid, idempotencyHeaders } from './params.js';
import type { AnyOperation, ObjectSchema, OperationCall, OperationGroup } from './operation.js';
import type { SliceContext } from './slice.js';
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
 * input (`title`, `screenshot.url`; the domain's InvalidFields names its own, mapped by requestPathOf); the
 * adapter knows where each top-level field came from.
 */
function locateDetails(error: unknown, locate: Locate): unknown {
  if (!(error instanceof AppError) || error.details === undefined) return error;
  const details = error.details.map((d) => {
    const path = error instanceof InvalidFields ? requestPathOf(d.path).slice('body.'.length) : d.path;
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

function shapeOf(schema: ObjectSchema | undefined): z.ZodRawShape {
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
      [status]: jsonResponse(dataOf(op.output), op.outputDescription),
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
        return c.json({ data: answered(c, written) }, status);
      }
      const output = await runLocated(locate, () => op.run(deps, call, input));
      return c.json({ data: output }, status);
    });
  };
}

/** The tool's input schema: the operation's path parameters (but the workspace), query and body fields. */
export function toolInputOf(op: AnyOperation): z.ZodObject {
  const describe = op.tool?.describe ?? {};
  const params: Record<string, z.ZodType> = {};
  for (const name of Object.keys(shapeOf(op.params))) {
    if (name === 'orgId') continue;
    const description = describe[name];
    params[name] = description === undefined ? canonicalUuid() : canonicalUuid().describe(description);
  }
  const base = op.body ?? op.query;
  const extra = op.body && op.query ? { ...shapeOf(op.query), ...params } : params;
  if (base) return base.extend(extra);
  return z.object(params).strict();
}

/** The assistant tool of a bound operation. */
function toolOf(op: AnyOperation, deps: unknown, billing: BillingPolicyOf): AnyTool {
  const meta = op.tool;
  const scope = op.access.scope;
  if (!meta || !scope) throw new Error(`operation ${op.name} has no tool`);
  const tool: Tool<z.ZodObject, unknown> = {
    name: op.name,
    title: meta.title,
    description: meta.description,
    scope,
    input: toolInputOf(op),
    ...(meta.hints ? { hints: meta.hints } : {}),
    checksAccess: true,
    async run({ caller, orgId, request }, args) {
      const input = { ...args, orgId };
      await checkOperationAccess(op, caller, input, billing());
      const call: OperationCall = { caller, request };
      const output =
        op.kind === 'write'
          ? (await runLocated(toolLocator, () => op.run(deps, call, input))).output
          : await runLocated(toolLocator, () => op.run(deps, call, input));
      return meta.wrapIn === undefined ? output : { [meta.wrapIn]: output };
    },
    summary: (answer) =>
      meta.summary(meta.wrapIn === undefined ? answer : (answer as Record<string, unknown>)[meta.wrapIn]),
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
