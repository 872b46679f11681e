// The assistant-tool server: MCP over Streamable HTTP at /mcp, stateless (each POST carries one JSON-RPC
// message and gets its answer as JSON; no session to keep, so any instance answers), behind the bearer tokens the
// authorization server (api/oauth) issues for `{base}/mcp`. The tools are the slices' own (`Slice.tools`), each
// calling the use case its route calls, with the assistant as the caller: its user's current role, narrowed to
// the connection's scopes. Errors come back as tool errors carrying the HTTP error's status, message and code.
import { isLoopbackHostname } from '../../infra/http/loopback.js';
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { assistantScopes, type Caller } from '../../domain/shared/caller.js';
import { permissionsOf } from '../../domain/workspaces/roles.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { AppEnv } from '../platform/app-env.js';
import { renderError, zodDetails } from '../platform/errors.js';
import { TooManyRequests } from '../../domain/shared/errors.js';
import type { AssistantGrant, AssistantTokens } from '../shared/assistant-auth.js';
import type { MembershipLookup } from '../auth/memberships.js';
import type { ToolMetrics, ToolOutcomeLabel } from '../../infra/metrics/metrics.js';
import type { AnyTool } from '../shared/tools.js';

/** The MCP SDK (with ajv and its JSON Schema tooling) is loaded by the first /mcp request, not by the start. */
type McpSdk = Awaited<ReturnType<typeof loadMcpSdk>>;
async function loadMcpSdk() {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { ...types, Server: server.Server, Transport: transport.WebStandardStreamableHTTPServerTransport };
}
let mcpSdkLoaded: Promise<McpSdk> | undefined;
const mcpSdk = (): Promise<McpSdk> => (mcpSdkLoaded ??= loadMcpSdk());

export interface ToolServerOptions {
  publicBaseUrl: string;
  /** Origins of the web app (APP_ORIGINS); browser requests from them may reach /mcp besides this service's own. */
  appOrigins?: readonly string[];
  tokens: AssistantTokens;
  roleOf: MembershipLookup;
  tools: () => readonly AnyTool[];
  logger: Logger;
  now?: () => Date;
  /** Counts each tool call by tool and outcome (`mcp_tool_calls_total`). */
  metrics?: ToolMetrics;
}

/** The outcome label of a tool call's error status. */
function outcomeOf(status: number): ToolOutcomeLabel {
  if (status === 400) return 'invalid_input';
  if (status === 401 || status === 403) return 'forbidden';
  return status >= 500 ? 'server_error' : 'client_error';
}

const serverInfo = { name: 'social-publishing', version: '0.1.0' };

/** The JSON Schema of a tool's input, computed once per tool. */
const inputSchemas = new WeakMap<AnyTool, McpTool['inputSchema']>();
function inputSchemaOf(tool: AnyTool): McpTool['inputSchema'] {
  let schema = inputSchemas.get(tool);
  if (!schema) {
    const json = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    delete json.$schema;
    schema = { ...json, type: 'object' };
    inputSchemas.set(tool, schema);
  }
  return schema;
}

function listed(tool: AnyTool): McpTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
    annotations: { title: tool.title, ...tool.hints },
    _meta: { scope: tool.scope },
  };
}

/** A tool error: the HTTP error's body (error, code, details) with its status, as text and structured content. */
function toolError(status: number, body: Record<string, unknown>): CallToolResult {
  const structured = { status, ...body };
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

/** The MCP server for one request of one caller: only the tools its scopes grant are listed or callable. */
function serverFor(
  sdk: McpSdk,
  caller: Caller & { kind: 'assistant' },
  options: ToolServerOptions,
  requestId: string,
): Server {
  const all = options.tools();
  const granted = all.filter((tool) => caller.scopes.includes(tool.scope));
  const byName = new Map(granted.map((tool) => [tool.name, tool]));
  const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = sdk;
  const server = new sdk.Server(serverInfo, {
    capabilities: { tools: { listChanged: false } },
    instructions:
      'Tools of a social publishing workspace. Drafts you create always wait for a person to approve them; ' +
      'nothing you draft is published without that approval.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: granted.map(listed) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const result = await callTool(request.params.name, request.params.arguments);
    const status = result.isError ? (result.structuredContent as { status?: number }).status : undefined;
    // Unknown tools throw (a JSON-RPC error) before this: only the service's tools are counted.
    options.metrics?.toolCall(request.params.name, status === undefined ? 'ok' : outcomeOf(status));
    return result;
  });
  async function callTool(name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const tool = byName.get(name);
    if (!tool) {
      const other = all.find((t) => t.name === name);
      if (other)
        return toolError(403, {
          error: `This connection was not granted the ${other.scope} scope`,
          code: 'insufficient_scope',
        });
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success)
      return toolError(400, { error: 'Invalid request', details: zodDetails(parsed.error, 'arguments') });
    try {
      const output = await tool.run(
        {
          caller,
          orgId: caller.orgId!,
          request: { correlationId: requestId, now: (options.now?.() ?? new Date()).toISOString() },
        },
        parsed.data,
      );
      return {
        content: [{ type: 'text', text: tool.summary(output) }],
        structuredContent: output as Record<string, unknown>,
      };
    } catch (error) {
      const rendered = renderError(error);
      if (!rendered) {
        options.logger.error({ err: error, reqId: requestId, tool: name }, 'tool failed');
        return toolError(500, { error: 'Internal error' });
      }
      return toolError(rendered.status, rendered.body);
    }
  }
  return server;
}

/** Most JSON-RPC messages one POST may carry; a larger batch is refused whole (400) and nothing of it runs. */
export const mcpMaxBatchMessages = 20;

/** The JSON-RPC error code of a request refused by the rate limits (implementation-defined server error). */
export const rateLimitedErrorCode = -32029;

type JsonRpcId = string | number;

function jsonRpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0' as const, id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}

/** The id of a JSON-RPC request (a message with a method and an id); undefined for notifications and others. */
function requestIdOf(message: unknown): JsonRpcId | undefined {
  if (typeof message !== 'object' || message === null || !('method' in message) || !('id' in message))
    return undefined;
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * The answer to a batch some of whose messages the rate limits refused: the answers of those that ran, then for
 * each refused request a JSON-RPC error with the 429's code and retryAfterSeconds (refused notifications need
 * no answer). An answer that is not the batch's JSON (an error of the whole request) stays as it was.
 */
async function withRateLimited(
  response: Response,
  refused: readonly unknown[],
  error: TooManyRequests,
): Promise<Response> {
  const errors = refused.flatMap((message) => {
    const id = requestIdOf(message);
    return id === undefined
      ? []
      : [
          jsonRpcError(id, rateLimitedErrorCode, error.message, {
            status: 429,
            code: error.code,
            retryAfterSeconds: error.retryAfterSeconds,
          }),
        ];
  });
  if (errors.length === 0) return response;
  // 202: what ran were notifications only.
  if (response.status === 202) return Response.json(errors, { status: 200 });
  const json = response.headers.get('content-type')?.startsWith('application/json') ?? false;
  if (response.status !== 200 || !json) return response;
  const answered: unknown = await response.json();
  const ran: unknown[] = Array.isArray(answered) ? (answered as unknown[]) : [answered];
  return Response.json([...ran, ...errors], { status: 200 });
}

/** Two host names are one host, counting every loopback name as the same one. */
function sameHostName(a: string, b: string): boolean {
  return a === b || (isLoopbackHostname(a) && isLoopbackHostname(b));
}

function hostNameOf(value: string, withScheme: boolean): string | null {
  const text = withScheme ? value : `http://${value}`;
  return URL.canParse(text) ? new URL(text).hostname.toLowerCase() : null;
}

/** An origin's port, with the scheme's default when the URL leaves it out. */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/**
 * DNS rebinding protection (the MCP transport's security requirement): a request must name this service's
 * host in `Host`, and a browser's `Origin`, when sent, must be exactly one of the app's origins (APP_ORIGINS:
 * scheme, host and port) or, for a service on loopback, its own origin (any loopback name, same scheme and
 * port). A page on evil.example resolving its name to this machine, or a page another program serves on
 * another loopback port, is refused before anything else (403).
 */
export function hostAllowed(
  publicBaseUrl: string,
  appOrigins: readonly string[],
  host: string | undefined,
  origin: string | undefined,
): boolean {
  const base = new URL(publicBaseUrl);
  const own = base.hostname.toLowerCase();
  const hostName = host ? hostNameOf(host, false) : null;
  if (hostName === null || !sameHostName(hostName, own)) return false;
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  const asked = new URL(origin);
  // APP_ORIGINS are stored as URL.origin writes them; the header is compared in the same form.
  if (appOrigins.includes(asked.origin)) return true;
  return (
    isLoopbackHostname(own) &&
    isLoopbackHostname(asked.hostname) &&
    asked.protocol === base.protocol &&
    portOf(asked) === portOf(base)
  );
}

export function toolServerRoutes(options: ToolServerOptions) {
  const resource = `${options.publicBaseUrl}/mcp`;
  const metadataUrl = `${options.publicBaseUrl}/.well-known/oauth-protected-resource/mcp`;
  const challenge = (error?: { code: string; description: string }) =>
    // The scope hint names every scope: clients ask for it, and the person narrows it on the consent page.
    `Bearer resource_metadata="${metadataUrl}", scope="${assistantScopes.join(' ')}"` +
    (error ? `, error="${error.code}", error_description="${error.description}"` : '');

  /** RFC 9728: the tool server as a protected resource, naming its authorization server (this service). */
  const protectedResource = (c: Context<AppEnv>) =>
    c.json({
      resource,
      authorization_servers: [options.publicBaseUrl],
      scopes_supported: [...assistantScopes],
      bearer_methods_supported: ['header'],
      resource_name: 'Social publishing tool server',
    });

  const unauthorized = (
    c: Context<AppEnv>,
    message: string,
    error?: { code: string; description: string },
  ) => {
    c.header('WWW-Authenticate', challenge(error));
    return c.json({ error: message }, 401);
  };

  /** The caller a token stands for now, or why not. */
  async function callerOf(grant: AssistantGrant): Promise<(Caller & { kind: 'assistant' }) | null> {
    const role = await options.roleOf(grant.userId, grant.orgId);
    if (role === null) return null;
    return {
      kind: 'assistant',
      userId: grant.userId,
      orgId: grant.orgId,
      role,
      permissions: permissionsOf(role),
      clientId: grant.clientId,
      clientName: grant.clientName,
      connectionId: grant.connectionId,
      scopes: grant.scopes,
    };
  }

  return (app: OpenAPIHono<AppEnv>) => {
    app.get('/.well-known/oauth-protected-resource/mcp', protectedResource);
    app.get('/.well-known/oauth-protected-resource', protectedResource);

    app.all('/mcp', async (c) => {
      if (
        !hostAllowed(
          options.publicBaseUrl,
          options.appOrigins ?? [],
          c.req.header('host') ?? new URL(c.req.url).host,
          c.req.header('origin'),
        )
      )
        return c.json({ error: 'This host or origin may not reach the tool server' }, 403);
      const header = c.req.header('authorization');
      const match = header ? /^Bearer\s+([\x21-\x7e]+)\s*$/i.exec(header) : null;
      if (!match)
        return unauthorized(
          c,
          'Connect this assistant through OAuth: the tool server needs a bearer token from this service',
        );
      const grant = await options.tokens.verifyAccessToken(match[1]!);
      if (!grant)
        return unauthorized(c, 'The access token is invalid, expired or revoked', {
          code: 'invalid_token',
          description: 'The access token is invalid, expired or revoked',
        });
      const caller = await callerOf(grant);
      if (!caller) {
        // Removed (or left): the connection ends for good, so rejoining later does not revive it.
        await options.tokens.endConnection(grant.connectionId);
        return unauthorized(
          c,
          'The user who connected this assistant is no longer a member of the workspace',
          {
            code: 'invalid_token',
            description: 'The connection no longer has a member behind it',
          },
        );
      }
      // The `mcp` rate limits: the connection is the token, its workspace the workspace (429 as elsewhere).
      const limiter = c.get('rateLimiter');
      const count = async () =>
        limiter?.consume('mcp', { token: `assistant:${grant.connectionId}`, workspace: grant.orgId });
      let body: unknown;
      /** Messages of a batch past the limit: not run, each request answered with a rate-limit error. */
      let limited: { messages: unknown[]; error: TooManyRequests } | undefined;
      if (c.req.method === 'POST') {
        // The app's body limit applies while it is read.
        const text = await c.req.text();
        try {
          body = JSON.parse(text);
        } catch {
          await count();
          return c.json(jsonRpcError(null, -32700, 'Parse error: Invalid JSON'), 400);
        }
        if (Array.isArray(body) && body.length > 1) {
          await count();
          if (body.length > mcpMaxBatchMessages)
            return c.json(
              jsonRpcError(
                null,
                -32600,
                `Invalid Request: a batch may carry at most ${mcpMaxBatchMessages} messages (this one has ` +
                  `${body.length}); nothing of it was run, send them in smaller batches`,
              ),
              400,
            );
          // Each message counts as one request, in order (the first with the POST itself).
          for (let admitted = 1; admitted < body.length; admitted++) {
            try {
              await count();
            } catch (error) {
              if (!(error instanceof TooManyRequests)) throw error;
              limited = { messages: body.slice(admitted), error };
              body = body.slice(0, admitted);
              break;
            }
          }
        } else await count();
      } else await count();
      const requestId = (c.get('requestId') as string | undefined) ?? randomUUID();
      const sdk = await mcpSdk();
      const server = serverFor(sdk, caller, options, requestId);
      const transport = new sdk.Transport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(c.req.raw, {
          ...(c.req.method === 'POST' ? { parsedBody: body } : {}),
          authInfo: {
            token: match[1]!,
            clientId: grant.clientId,
            scopes: [...grant.scopes],
            resource: new URL(resource),
            extra: { userId: grant.userId, orgId: grant.orgId, connectionId: grant.connectionId },
          },
        });
        return limited ? withRateLimited(response, limited.messages, limited.error) : response;
      } finally {
        void server.close();
      }
    });
  };
}
