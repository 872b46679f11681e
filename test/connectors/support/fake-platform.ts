// A locally served platform API for connector tests: routes answer with the platform's documented
// responses (including errors and rate limits), and every request is recorded for assertions.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Raw body bytes; `text` and `json` for convenience. */
  raw: Buffer;
  text: string;
  json: unknown;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** Objects are sent as JSON; strings and buffers as they are. */
  body?: unknown;
  /** Never answer (to test timeouts); the socket is closed when the server stops. */
  hang?: boolean;
}

export type FakeHandler = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

export interface FakePlatform {
  baseUrl: string;
  requests: RecordedRequest[];
  /** `METHOD /path` (exact path, or a RegExp on the path). Later registrations win. */
  on(method: string, path: string | RegExp, handler: FakeHandler | FakeReply): void;
  /** Requests for one route, in order. */
  calls(method: string, path: string | RegExp): RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakePlatform(): Promise<FakePlatform> {
  const routes: Array<{ method: string; path: string | RegExp; handler: FakeHandler }> = [];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const matches = (route: { method: string; path: string | RegExp }, method: string, path: string) =>
    route.method === method && (typeof route.path === 'string' ? route.path === path : route.path.test(path));

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON; tests read `text`
        }
        const recorded: RecordedRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          raw,
          text,
          json,
        };
        requests.push(recorded);
        const route = [...routes].reverse().find((r) => matches(r, recorded.method, recorded.path));
        const reply: FakeReply = route
          ? await route.handler(recorded)
          : { status: 404, body: { error: `no fake route for ${recorded.method} ${recorded.path}` } };
        if (reply.hang) {
          hanging.add(res);
          return;
        }
        const headers: Record<string, string> = { ...reply.headers };
        let payload: string | Buffer = '';
        if (Buffer.isBuffer(reply.body) || typeof reply.body === 'string') payload = reply.body;
        else if (reply.body !== undefined) {
          payload = JSON.stringify(reply.body);
          headers['content-type'] ??= 'application/json';
        }
        res.writeHead(reply.status ?? 200, headers);
        res.end(payload);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    on(method, path, handler) {
      routes.push({ method, path, handler: typeof handler === 'function' ? handler : () => handler });
    },
    calls(method, path) {
      return requests.filter((r) => matches({ method, path }, r.method, r.path));
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
