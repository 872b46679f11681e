// The before/after table `npm run bench` prints last: each target of issues 10, 12 and 13 beside what was measured when the
// issue was filed (the "before", from its text: 2 cores, the machine's PostgreSQL, the load generator then
// inside the server) and what this run measured. A row shows only when its benchmark ran.

/** A benchmark row (by the start of its name in the results) and the issue's figures for it. */
interface Comparison {
  /** The result rows it reads: every row whose name starts with one of these. */
  rows: readonly string[];
  label: string;
  /** As the issue reports it. */
  before: string;
  target: string;
  /** The number a run's result must reach (req/s, events/s, posts/s); NaN when the target is a latency only. */
  atLeast: number;
  /** The p99 it must stay under, when the target names one (ms). */
  p99AtMost?: number;
  /** The server + PostgreSQL CPU per request it must stay under, when the target names one (ms). */
  cpuAtMost?: number;
}

const comparisons: readonly Comparison[] = [
  // Issue 26: the default configuration as `npm start` runs it (info logs, the shipped pool, rate limits on),
  // which is how every benchmark now runs the service (BENCH_TUNED=1 for the tuned variant).
  {
    rows: ['HTTP POST …/post-groups/{id}/approve body {"autoSchedule": false}'],
    label: 'approve, default configuration, 32 conn (issue 26)',
    before: '119–137 req/s, p99 358–481 ms, 12.8 ms CPU',
    target: '≥500 req/s, p99 ≤80 ms, ≤3 ms CPU',
    atLeast: 500,
    p99AtMost: 80,
    cpuAtMost: 3,
  },
  {
    rows: ['HTTP GET …/posts '],
    label: 'list posts, default configuration, each mix (issue 26)',
    before: '159–194 req/s, p99 145–156 ms, 9 ms CPU',
    target: '≥1,000 req/s, p99 ≤30 ms',
    atLeast: 1000,
    p99AtMost: 30,
  },
  {
    rows: ['HTTP POST …/drafts'],
    label: 'drafts, default configuration (issue 26)',
    before: '66–91 req/s',
    target: '≥400 req/s',
    atLeast: 400,
  },
  {
    rows: ['HTTP GET /healthz'],
    label: '/healthz, default configuration (issue 26)',
    before: '4,300–4,600 req/s',
    target: '≥12,000 req/s',
    atLeast: 12000,
  },
  {
    rows: ['HTTP POST …/post-groups/{id}/approve body {"autoSchedule": false}'],
    label: 'approve (autoSchedule false), 32 conn',
    before: '111–181 req/s, p99 262–385 ms',
    target: '≥1,000 req/s, p99 ≤50 ms',
    atLeast: 1000,
    p99AtMost: 50,
  },
  {
    rows: ['HTTP GET …/posts '],
    label: 'list posts over 100,000 posts, each mix',
    before: '175–297 req/s, p99 56–97 ms',
    target: '≥2,000 req/s, p99 ≤15 ms',
    atLeast: 2000,
    p99AtMost: 15,
  },
  {
    rows: ['HTTP POST /v1/orgs'],
    label: 'POST /v1/orgs, 32 conn',
    before: '63 req/s, p99 1 s',
    target: '≥800 req/s, p99 ≤60 ms',
    atLeast: 800,
    p99AtMost: 60,
  },
  {
    rows: ['append: 16 writer(s) × 1 event(s)/append'],
    label: 'appends, 16 writers × 1 event',
    before: '2,719 events/s',
    target: '≥5,000 events/s',
    atLeast: 5000,
  },
  {
    rows: ['projection rebuild: workspaces'],
    label: 'rebuild workspaces',
    before: '3,516 events/s',
    target: '≥30,000 events/s',
    atLeast: 30000,
  },
  {
    rows: ['projection rebuild: post_groups'],
    label: 'rebuild post_groups',
    before: '1,694 events/s (catch-up)',
    target: '≥15,000 events/s',
    atLeast: 15000,
  },
  {
    rows: ['publish rate, '],
    label: 'publishing, posts due at once',
    before: '137 posts/s',
    target: '≥500 posts/s',
    atLeast: 500,
  },
  {
    rows: ['due-to-published lag'],
    label: 'publishing lag at 50 due/s',
    before: 'not measured',
    target: 'p99 ≤250 ms',
    atLeast: Number.NaN,
    p99AtMost: 250,
  },
  {
    rows: ['HTTP GET …/scheduler/slots?platform=x (14 days'],
    label: 'slots, 500 scheduled + a year of history (issue 12)',
    before: 'new',
    target: 'p99 ≤20 ms',
    atLeast: Number.NaN,
    p99AtMost: 20,
  },
  {
    rows: ['approve with autoSchedule ÷ approve with autoSchedule false'],
    label: 'approve with autoSchedule vs without, 32 conn (issue 12)',
    before: 'new',
    target: '≥0.5 × (no slower than half)',
    atLeast: 0.5,
  },
  {
    rows: ['notification fan-out: read-model lag, last third'],
    label: 'notification fan-out, 50 members, 1,000 events/s (issue 13)',
    before: 'new',
    target: 'no lag growth: last-third lag p99 ≤1,000 ms',
    atLeast: Number.NaN,
    p99AtMost: 1000,
  },
];

const firstNumber = (text: string): number =>
  Number(/[\d,]+(\.\d+)?/.exec(text)?.[0]?.replace(/,/g, '') ?? NaN);
const p99Of = (text: string): number => Number(/p99 ([\d,]+)/.exec(text)?.[1]?.replace(/,/g, '') ?? NaN);
/** Server + PostgreSQL CPU per request, from a load's detail (`CPU 1.2 ms/req server + 0.8 ms/req PostgreSQL`). */
const cpuOf = (text: string): number => {
  const found = /CPU ([\d.]+) ms\/req server \+ ([\d.]+) ms\/req PostgreSQL/.exec(text);
  return found ? Number(found[1]) + Number(found[2]) : NaN;
};

/** The rows of the table, from the run's results ([name, result, detail]). */
export function beforeAfterRows(results: ReadonlyArray<readonly [string, string, string]>): string[][] {
  const out: string[][] = [];
  for (const c of comparisons) {
    const matching = results.filter(([name]) => c.rows.some((prefix) => name.startsWith(prefix)));
    if (matching.length === 0) continue;
    const rates = matching.map(([, result]) => firstNumber(result));
    const p99s = matching.map(([, result, detail]) => p99Of(`${result} ${detail}`));
    const lowest = Math.min(...rates);
    const worstP99 = Math.max(...p99s);
    const worstCpu = Math.max(...matching.map(([, result, detail]) => cpuOf(`${result} ${detail}`)));
    const unit = /[a-z/]+$/i.exec(matching[0]![1].trim())?.[0] ?? '';
    const parts = [
      ...(Number.isNaN(c.atLeast) ? [] : [`${matching.length > 1 ? 'lowest ' : ''}${fmtN(lowest)} ${unit}`]),
      ...(Number.isNaN(worstP99) ? [] : [`p99 ${matching.length > 1 ? 'up to ' : ''}${fmtN(worstP99)} ms`]),
      ...(c.cpuAtMost === undefined || Number.isNaN(worstCpu) ? [] : [`${worstCpu.toFixed(1)} ms CPU`]),
    ];
    const now = `${parts.join(', ')}${matching.length > 1 ? ` (${matching.length} mixes)` : ''}`;
    const met =
      (Number.isNaN(c.atLeast) || lowest >= c.atLeast) &&
      (c.p99AtMost === undefined || worstP99 <= c.p99AtMost) &&
      (c.cpuAtMost === undefined || worstCpu <= c.cpuAtMost);
    out.push([c.label, c.before, now, c.target, met ? 'met' : 'not met']);
  }
  return out;
}

const fmtN = (n: number): string => n.toLocaleString('en-US');

export function printBeforeAfter(results: ReadonlyArray<readonly [string, string, string]>): void {
  const table = beforeAfterRows(results);
  if (table.length === 0) return;
  const head = ['target (issues 10, 12, 13, 26)', 'before (issue text)', 'now (this run)', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(
    '\nBefore and after (throughput rows must reach the target in every mix; see docs/performance.md)\n',
  );
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of table) console.log(line(r));
}
