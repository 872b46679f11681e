// Summarises V8 CPU profiles (`.cpuprofile`, from BENCH_CPU_PROFILE=<dir> or `node --cpu-prof`): where the
// samples fall by package or project folder, the top functions by self time and by inclusive time, and the
// inclusive time of chosen frames. Idle samples are left out of the percentages (they are time waiting).
//
//   npx tsx test/bench/profile-summary.ts <file.cpuprofile> [--top 30] [--frame name …]
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `pg`, `kysely`, `hono`, … for dependencies; the project folder (`api`, `infra`, …) for our code. */
function bucketOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (['(garbage collector)', '(idle)', '(program)', '(root)'].includes(functionName)) return functionName;
    return '(native)';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const own =
    /\/work\/[^/]+\/([^/]+)\//.exec(url) ??
    /file:\/\/.*?\/(api|infra|commands|domain|projections|processes|test)\//.exec(url);
  return own ? own[1]! : url;
}

const label = (f: CallFrame) =>
  `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/[^/]+\//, '')}:${f.lineNumber + 1}`;

function summarise(file: string, top: number, frames: string[]): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  let total = 0;
  let idle = 0;
  const buckets = new Map<string, number>();
  const selfBy = new Map<string, number>();
  const inclusiveBy = new Map<string, number>();
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    const bucket = bucketOf(node.callFrame);
    if (bucket === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    const l = label(node.callFrame);
    selfBy.set(l, (selfBy.get(l) ?? 0) + us);
    // Each distinct frame on the stack once (recursion counted once).
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = label(byId.get(at)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusiveBy.set(k, (inclusiveBy.get(k) ?? 0) + us);
    }
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
  const show = (title: string, entries: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [k, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, n))
      console.log(`${pct(us)} ${ms(us)}  ${k}`);
  };
  console.log(`${file}\nbusy ${ms(total)}, idle ${ms(idle)}`);
  show('By package / folder (self time)', buckets, 40);
  show(`Top ${top} by self time`, selfBy, top);
  show(
    `Top ${top} by inclusive time`,
    new Map([...inclusiveBy].filter(([k]) => !k.startsWith('(root)'))),
    top,
  );
  if (frames.length > 0)
    show(
      'Chosen frames (inclusive)',
      new Map([...inclusiveBy].filter(([k]) => frames.some((f) => k.includes(f)))),
      200,
    );
}

const args = process.argv.slice(2);
let top = 30;
const frames: string[] = [];
const files: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--top') top = Number(args[++i]);
  else if (args[i] === '--frame') frames.push(args[++i]!);
  else files.push(args[i]!);
}
if (files.length === 0) {
  console.error('usage: tsx test/bench/profile-summary.ts <file.cpuprofile> [--top 30] [--frame name …]');
  process.exit(2);
}
for (const file of files) summarise(file, top, frames);
