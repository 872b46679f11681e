// A locally served model provider for tests (issue 27): OpenAI's /v1/chat/completions and Anthropic's
// /v1/messages in their documented response shapes. Every request body is recorded (`requests`, `prompts()`),
// so a test can inspect each prompt sent to the provider. What it answers is chosen by a `scenario:<name>` marker
// in the prompt (so parallel calls of different tests do not interfere) and scripted by `scenarios`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ModelCall {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The system and user text of the request, joined. */
  text: string;
  scenario: string;
  /** 1 for the first call of this scenario, 2 for the next, … */
  callNumber: number;
}

/** What to answer: JSON content (the structured output), a refusal, an HTTP error, or nothing for a while. */
export type ModelReply =
  | { content: string; usage?: { input: number; output: number } }
  | { refusal: string }
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { delayMs: number; then: ModelReply }
  | { wait: Promise<void>; then: ModelReply };

export type Scenario = (call: ModelCall) => ModelReply;

export interface ModelServer {
  url: string;
  /** The OpenAI-style base URL (`…/v1`). */
  baseUrl: string;
  requests: ModelCall[];
  /** Every prompt text sent, in order. */
  prompts(): string[];
  scenarios: Map<string, Scenario>;
  close(): Promise<void>;
}

function textOf(body: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof body.system === 'string') parts.push(body.system);
  if (Array.isArray(body.system))
    for (const s of body.system as { text?: string }[]) if (s.text) parts.push(s.text);
  for (const message of (body.messages as { content: unknown }[] | undefined) ?? []) {
    if (typeof message.content === 'string') parts.push(message.content);
    else if (Array.isArray(message.content))
      for (const c of message.content as { text?: string }[]) if (c.text) parts.push(c.text);
  }
  return parts.join('\n');
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

function openAiAnswer(
  body: Record<string, unknown>,
  reply: { content: string; usage?: { input: number; output: number } } | { refusal: string },
) {
  const usage = 'content' in reply ? (reply.usage ?? { input: 120, output: 40 }) : { input: 100, output: 8 };
  return {
    id: 'chatcmpl-local',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        message:
          'content' in reply
            ? { role: 'assistant', content: reply.content, refusal: null }
            : { role: 'assistant', content: null, refusal: reply.refusal },
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  };
}

function anthropicAnswer(
  body: Record<string, unknown>,
  reply: { content: string; usage?: { input: number; output: number } } | { refusal: string },
) {
  const usage = 'content' in reply ? (reply.usage ?? { input: 120, output: 40 }) : { input: 100, output: 8 };
  const tools = (body.tools as { name?: string }[] | undefined) ?? [];
  const viaTool = 'content' in reply && tools.some((t) => t.name === 'json');
  return {
    id: 'msg_local',
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: viaTool
      ? [
          {
            type: 'tool_use',
            id: 'toolu_local',
            name: 'json',
            input: JSON.parse((reply as { content: string }).content) as unknown,
          },
        ]
      : [{ type: 'text', text: 'content' in reply ? reply.content : reply.refusal }],
    stop_reason: 'content' in reply ? (viaTool ? 'tool_use' : 'end_turn') : 'refusal',
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

export async function startModelServer(): Promise<ModelServer> {
  const requests: ModelCall[] = [];
  const scenarios = new Map<string, Scenario>();
  const counts = new Map<string, number>();

  async function answer(res: ServerResponse, call: ModelCall, reply: ModelReply): Promise<void> {
    if ('delayMs' in reply) {
      await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      if (res.destroyed || res.writableEnded) return;
      return answer(res, call, reply.then);
    }
    if ('wait' in reply) {
      await reply.wait;
      if (res.destroyed) return;
      return answer(res, call, reply.then);
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { error: { message: `status ${reply.status}`, type: 'error' } }));
      return;
    }
    const json = call.path.endsWith('/messages')
      ? anthropicAnswer(call.body, reply)
      : openAiAnswer(call.body, reply);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(json));
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const text = textOf(body);
      const scenario = /scenario:([\w-]+)/.exec(text)?.[1] ?? 'ok';
      const callNumber = (counts.get(scenario) ?? 0) + 1;
      counts.set(scenario, callNumber);
      const call: ModelCall = { path: req.url ?? '', headers: req.headers, body, text, scenario, callNumber };
      requests.push(call);
      const script = scenarios.get(scenario);
      if (!script) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no scenario ${scenario}` } }));
        return;
      }
      await answer(res, call, script(call));
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    prompts: () => requests.map((r) => r.text),
    scenarios,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
