// visuals: branded renders over real HTTP, the load from the load generator's own process. Rows: one 1080×1080
// image (`POST …/visuals/image`, square, brand theme) at one connection, as the request sees it and as the
// renderer reports it (`renderMs`); a 10-slide carousel with its PDF at one connection; and list-posts p99 idle
// against list-posts p99 while 20 image renders run at once (renders run in the worker pool, so the event loop
// that answers list-posts must not stall: the bound is 2× the idle p99).
//
// Sizes: BENCH_VISUALS_IMAGES (image requests, default 60), BENCH_VISUALS_CAROUSELS (10), BENCH_VISUALS_POSTS (drafts
// in the listed workspace, 500), BENCH_VISUALS_LIST_SECONDS (seconds of each list-posts run, 10),
// BENCH_VISUALS_CONCURRENT (renders at once beside the list, 20); BENCH_RENDER_THREADS sets RENDER_THREADS (default:
// the service's, cores less one).
import {
  createWorkspaces,
  describeLatency,
  describeStatuses,
  envInt,
  fmt,
  freshDatabase,
  percentile,
  record,
  runLoad,
  startService,
  type BenchContext,
  type BenchService,
} from './shared.js';

const content = {
  eyebrow: 'Field notes',
  title: 'Three things we learned moving our publishing calendar to events',
  body: 'Approvals became an audit trail, the calendar a projection, and nobody asks "who changed this?" any more.',
};

export async function visualsBench(ctx: BenchContext): Promise<void> {
  const images = envInt('BENCH_VISUALS_IMAGES', 60);
  const carousels = envInt('BENCH_VISUALS_CAROUSELS', 10);
  const posts = envInt('BENCH_VISUALS_POSTS', 500);
  const listSeconds = envInt('BENCH_VISUALS_LIST_SECONDS', 10);
  const concurrent = envInt('BENCH_VISUALS_CONCURRENT', 20);
  const database = await freshDatabase(ctx, 'visuals');
  let service: BenchService | undefined;
  try {
    const threads = process.env.BENCH_RENDER_THREADS;
    // The bench runs its concurrent renders in one workspace: its share of the render queue is raised to match.
    service = await startService(database.url, {
      ...(threads ? { RENDER_THREADS: threads } : {}),
      RENDER_QUEUE_PER_WORKSPACE: String(Math.max(4, concurrent)),
    });
    await service.startBackground();
    const { origin } = service;
    const [workspace] = await createWorkspaces(service, 1, 'bench-visuals');
    const ws = workspace!;
    const headers = { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' };
    const orgBase = ws.base.replace(/\/marketing$/, '');
    const brand = await fetch(`${origin}${orgBase}/brand/kit`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({
        colors: { primary: '#1d3557', secondary: '#457b9d', accent: '#e9c46a', background: '#f1faee' },
        headingFont: 'Poppins',
        bodyFont: 'Inter',
        tagline: 'Publishing, planned',
      }),
    });
    if (!brand.ok) throw new Error(`PATCH brand/kit answered ${brand.status}: ${await brand.text()}`);

    const renderMs = (responses: Array<[number, string]> | undefined) =>
      (responses ?? [])
        .filter(([status]) => status === 200)
        .map(([, body]) => (JSON.parse(body) as { data: { renderMs: number } }).data.renderMs)
        .sort((a, b) => a - b);
    const imageRequest = {
      method: 'POST' as const,
      path: `${ws.base}/visuals/image`,
      headers,
      body: JSON.stringify({ content, template: 'headline', format: 'square', theme: 'brand' }),
    };

    console.error(`warming the render pool…`);
    await runLoad({ origin, connections: 2, amount: 6, requests: [imageRequest] });

    console.error(`${images} square images at one connection…`);
    const image = await runLoad({
      origin,
      connections: 1,
      amount: images,
      collectBodies: true,
      requests: [imageRequest],
    });
    const imageRender = renderMs(image.responses);
    record(
      'visuals image 1080×1080 (1 connection)',
      `p50 ${image.latency.p50} ms`,
      `${describeLatency(image)}; renderMs p50 ${percentile(imageRender, 50)}, p99 ${percentile(imageRender, 99)} (target p50 ≤100 ms); ${describeStatuses(image.statuses)}`,
    );

    console.error(`${carousels} ten-slide carousels with their PDF…`);
    const slides = Array.from({ length: 10 }, (_, i) => ({
      title:
        i === 0
          ? 'Ten lessons from a year of shipping in public'
          : `Lesson ${i}: keep the audit trail honest`,
      body: 'Every approval is an event; every schedule is a decision someone can replay.',
      ...(i === 9 ? { cta: 'Follow for more' } : {}),
    }));
    const carousel = await runLoad({
      origin,
      connections: 1,
      amount: carousels,
      collectBodies: true,
      requests: [
        {
          method: 'POST' as const,
          path: `${ws.base}/visuals/carousel`,
          headers,
          body: JSON.stringify({ slides, format: 'portrait', theme: 'brand' }),
        },
      ],
    });
    const carouselRender = renderMs(carousel.responses);
    record(
      'visuals carousel 10 slides + PDF (1 connection)',
      `p50 ${carousel.latency.p50} ms`,
      `max ${carousel.latency.max} ms; renderMs p50 ${percentile(carouselRender, 50)}, max ${carouselRender.at(-1)} (target ≤1 s); ${describeStatuses(carousel.statuses)}`,
    );

    console.error(`seeding ${fmt(posts)} drafts for list-posts…`);
    await runLoad({
      origin,
      connections: 16,
      amount: posts,
      requests: [
        {
          method: 'POST' as const,
          path: `${ws.base}/drafts`,
          headers,
          body: JSON.stringify({ title: 'Listed {n}', posts: [{ platform: 'x', contentText: 'Post {n}' }] }),
        },
      ],
    });
    const listRequest = {
      method: 'GET' as const,
      path: `${ws.base}/posts?limit=25&sortBy=createdAt&sortDir=desc`,
      headers: { authorization: headers.authorization },
    };
    const listConnections = 4;
    console.error(`list-posts idle for ${listSeconds} s…`);
    const idle = await runLoad({
      origin,
      connections: listConnections,
      duration: listSeconds,
      requests: [listRequest],
    });
    record(
      `visuals: list-posts idle (${listConnections} connections)`,
      `p99 ${idle.latency.p99} ms`,
      `${fmt(idle.rate)} req/s; ${describeLatency(idle)}`,
    );

    console.error(`list-posts while ${concurrent} image renders run at once…`);
    const [busy, renders] = await Promise.all([
      runLoad({ origin, connections: listConnections, duration: listSeconds, requests: [listRequest] }),
      runLoad({ origin, connections: concurrent, duration: listSeconds, requests: [imageRequest] }),
    ]);
    record(
      `visuals: list-posts beside ${concurrent} concurrent renders`,
      `p99 ${busy.latency.p99} ms`,
      `${fmt(busy.latency.p99 / Math.max(1, idle.latency.p99), 2)}× idle (target ≤2×), ${fmt(busy.rate)} req/s; renders meanwhile ${fmt(renders.rate, 1)}/s, p50 ${renders.latency.p50} ms; ${describeStatuses(renders.statuses)}`,
    );
  } finally {
    await service?.stop();
    await database.drop();
  }
}
