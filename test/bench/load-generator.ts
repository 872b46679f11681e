// The benchmarks' load generator, run in a process of its own so that sending requests and reading answers
// never takes CPU from the server's event loop. The parent forks this file (`runLoad` in shared.ts), sends one
// LoadSpec over IPC and gets one LoadResult back.
//
// Requests are data, not callbacks: the parent lists concrete requests, which are sent in order and cycled;
// `{n}` in a path or body becomes the request's sequence number (unique slugs in open-ended runs).
import autocannon from 'autocannon';

export interface LoadRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadSpec {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  connections: number;
  /** Seconds to run; or `amount`, a fixed number of requests. */
  duration?: number;
  amount?: number;
  requests: LoadRequest[];
  /** Send the answers' bodies back (for runs whose answers the parent reads, e.g. ids to approve next). */
  collectBodies?: boolean;
  /** Seconds a request may take before it counts as a timeout (autocannon's default: 10). */
  timeoutSeconds?: number;
}

export interface LoadResult {
  /** Requests per second over the whole run. */
  rate: number;
  total: number;
  durationSeconds: number;
  latency: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  /** [status, count] */
  statuses: Array<[number, number]>;
  /** [status, body] in the order answers came, with `collectBodies`. */
  responses?: Array<[number, string]>;
}

const fill = (template: string, n: number) =>
  template.includes('{n}') ? template.replaceAll('{n}', String(n)) : template;

/** Seconds from the first request to the last answer; autocannon's figure when nothing was answered. */
const elapsedSeconds = (first: number, last: number, fallback: number) =>
  last > first ? (last - first) / 1000 : fallback;

export async function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  if (spec.requests.length === 0) throw new Error('a load needs at least one request');
  let sequence = 0;
  // The rate is timed here, first request sent to last answer received: autocannon ends a run with a fixed
  // amount on its next one-second tick, so its own duration is rounded up to whole seconds (1,000 answers in
  // 4.1 s read as 200 req/s instead of 244).
  let firstSent = 0;
  let lastAnswered = 0;
  const statuses = new Map<number, number>();
  const responses: Array<[number, string]> = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(
      {
        url: spec.origin,
        connections: spec.connections,
        ...(spec.timeoutSeconds !== undefined ? { timeout: spec.timeoutSeconds } : {}),
        ...(spec.amount !== undefined ? { amount: spec.amount } : { duration: spec.duration ?? 10 }),
        requests: [
          {
            setupRequest: (req) => {
              const n = sequence++;
              if (n === 0) firstSent = performance.now();
              const r = spec.requests[n % spec.requests.length]!;
              return {
                ...req,
                method: r.method,
                path: fill(r.path, n),
                headers: r.headers ?? {},
                ...(r.body !== undefined ? { body: fill(r.body, n) } : {}),
              };
            },
            onResponse: (status, body) => {
              lastAnswered = performance.now();
              statuses.set(status, (statuses.get(status) ?? 0) + 1);
              if (spec.collectBodies) responses.push([status, body]);
            },
          },
        ],
      },
      (err: Error | null, res) => (err ? reject(err) : resolve(res)),
    ),
  );
  return {
    rate: result.requests.total / elapsedSeconds(firstSent, lastAnswered, result.duration),
    total: result.requests.total,
    durationSeconds: elapsedSeconds(firstSent, lastAnswered, result.duration),
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses: [...statuses.entries()],
    ...(spec.collectBodies ? { responses } : {}),
  };
}

// Run as the child `runLoad` forks (marked by the variable: under tsx's CLI the parent has an IPC channel too).
// The parent measures its CPU time between `ready`/`go` and `finished`, so that receiving the spec and sending
// the result back (both serialised over IPC, and large for some loads) are not counted as serving requests.
if (process.env.BENCH_LOAD_GENERATOR === '1' && process.send) {
  process.once('message', (spec: LoadSpec) => {
    process.once('message', () => void run(spec));
    process.send!({ phase: 'ready' });
  });
  const run = (spec: LoadSpec) =>
    generateLoad(spec).then(
      (result) => {
        process.send!({ phase: 'finished' });
        process.send!({ ok: true, result }, () => process.exit(0));
      },
      (error: unknown) =>
        process.send!({ ok: false, error: error instanceof Error ? error.stack : String(error) }, () =>
          process.exit(1),
        ),
    );
}
