// The X sandbox's reads: realistic posts, conversations and the account's own timeline, the same for the same id and
// clock. A post published through the service reads back with its text; any other id is a post by one of a
// handful of sandbox authors, drawn from a hash of the id (text with hashtags, mentions, cashtags and links,
// photos, videos or GIFs, a quoted post, numbers that grow with its age). A root post's conversation holds its
// author's thread and other people's replies (their places are recorded in sandbox_x_posts when first read, so
// reading one of them by id later tells the same story). Ids ending in 404 are deleted posts; in 403, hidden
// (a protected account). The account's timeline holds its publications and posts "made elsewhere", a few a day.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { XAccountPost } from '../../../domain/analytics/x-account.js';
import type { CallContext } from '../port.js';
import type {
  XAccountActivity,
  XAccountActivityRequest,
  XAuthor,
  XConversationRequest,
  XConversationResult,
  XLink,
  XMedia,
  XPost,
  XPostsRequest,
  XPostsResult,
} from '../x-reads.js';
import { sandboxMetrics } from './metrics.js';
import type { SandboxTables } from './migrations.js';

export interface SandboxXReadsDeps {
  db: Kysely<SandboxTables>;
  /** The service's public base URL (media and profile links point under /v1/sandbox/x). */
  base: string;
  now: () => Date;
  /** The sandbox's check of the account's grant and token (revoked, expired → `auth`). */
  authorize: (context: CallContext) => Promise<void>;
}

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
/** X's snowflake epoch: an X post id carries its creation time in milliseconds after it, shifted 22 bits. */
const snowflakeEpochMs = 1_288_834_974_657;
/** Ids that do not carry a creation time in the past are placed in 2024. */
const fallbackEpochMs = Date.UTC(2024, 0, 1);
/** X gives an account's private numbers of its posts for 30 days. */
const privateNumbersMs = 30 * dayMs;

/** Uniform numbers in [0, 1) drawn from a label: the same label always draws the same ones. */
export function draws(label: string, count = 8): number[] {
  const digest = createHash('sha256').update(`sandbox-x:${label}`).digest();
  return Array.from({ length: count }, (_, i) => digest.readUInt32BE((i % 8) * 4) / 2 ** 32);
}

export const pick = <T>(items: readonly T[], draw: number): T => items[Math.floor(draw * items.length)]!;

/** A 19-digit id like X's own, drawn from a label. */
function derivedId(label: string): string {
  const digest = createHash('sha256').update(`sandbox-x-id:${label}`).digest();
  return (10n ** 18n + (BigInt(`0x${digest.subarray(0, 8).toString('hex')}`) % (9n * 10n ** 17n))).toString();
}

/** An id shaped like X's own for a post made at `atMs`: the time in its high bits, the rest drawn from a label. */
export function snowflakeId(atMs: number, label: string): string {
  const digest = createHash('sha256').update(`sandbox-x-snowflake:${label}`).digest();
  const low = BigInt(digest.readUInt32BE(0) & 0x3fffff);
  return ((BigInt(Math.max(0, Math.floor(atMs - snowflakeEpochMs))) << 22n) | low).toString();
}

export interface SandboxAuthor {
  handle: string;
  name: string;
  bio: string;
  followers: number;
  verified: boolean;
  topics: readonly string[];
}

/** The people of the sandbox's X. */
export const authors: readonly SandboxAuthor[] = [
  {
    handle: 'maya_builds',
    name: 'Maya Chen',
    bio: 'Indie hacker. Building tools for small teams. Shipping in public.',
    followers: 18_420,
    verified: true,
    topics: ['buildinpublic', 'indiehackers', 'SaaS'],
  },
  {
    handle: 'devrel_dan',
    name: 'Dan Okafor',
    bio: 'Developer relations. APIs, docs and the people who read them.',
    followers: 7_310,
    verified: false,
    topics: ['DevRel', 'APIs', 'docs'],
  },
  {
    handle: 'growthwithgrace',
    name: 'Grace Lindqvist',
    bio: 'B2B marketing lead. Writing about positioning, content and distribution.',
    followers: 42_900,
    verified: true,
    topics: ['B2B', 'marketing', 'contentstrategy'],
  },
  {
    handle: 'datadriven_raj',
    name: 'Raj Patel',
    bio: 'Analytics engineer. Dashboards are a conversation, not a report.',
    followers: 3_270,
    verified: false,
    topics: ['analytics', 'dataviz', 'SQL'],
  },
  {
    handle: 'sofia_designs',
    name: 'Sofia Alvarez',
    bio: 'Product designer. Typography nerd. Currently redesigning onboarding flows.',
    followers: 11_650,
    verified: false,
    topics: ['design', 'UX', 'typography'],
  },
  {
    handle: 'marketpulse',
    name: 'Market Pulse',
    bio: 'Markets, earnings and the stories behind the tickers. Not financial advice.',
    followers: 128_300,
    verified: true,
    topics: ['stocks', 'earnings', 'markets'],
  },
  {
    handle: 'oss_olly',
    name: 'Olly Brandt',
    bio: 'Maintainer of too many open-source packages. Coffee-powered.',
    followers: 5_890,
    verified: false,
    topics: ['opensource', 'TypeScript', 'nodejs'],
  },
  {
    handle: 'founder_fatima',
    name: 'Fatima Rahman',
    bio: 'Co-founder & CEO. Hiring, fundraising and learning out loud.',
    followers: 24_100,
    verified: true,
    topics: ['startups', 'founders', 'hiring'],
  },
];

const cashtags = ['AAPL', 'MSFT', 'NVDA', 'TSLA', 'AMZN', 'GOOGL'];

export const openers = [
  'Hot take:',
  'Lesson from this week:',
  'Something I keep relearning:',
  'Unpopular opinion:',
  'Note to self:',
  'After three years of building:',
  'Reminder:',
  'What worked for us:',
];

export const bodies = [
  'the best feedback comes from the customers who almost churned.',
  'consistency beats intensity. Post a little every day and look back in a month.',
  'most dashboards answer questions nobody asked. Start from the decision.',
  'a clear changelog is the cheapest marketing you will ever do.',
  'pricing pages convert better when they say who the plan is NOT for.',
  'onboarding is a conversation: ask one question at a time.',
  'the first 100 users came from replies, not from posts.',
  'write the docs before the code and half the design debates disappear.',
];

export const replyLines = [
  'This matches what we saw too, especially the second point.',
  'Great thread. Bookmarking for the team.',
  'Curious how you measured that?',
  'Hard agree. We learned this the expensive way.',
  'Counterpoint: it depends a lot on the audience.',
  'Would love a follow-up on the tooling you used.',
  'Saving this one. Thanks for writing it up!',
  'How long did it take before you saw results?',
];

const threadLines = [
  'First, talk to the people who left. Their reasons are your roadmap.',
  'Second, write down the one metric that matters this quarter, and ignore the rest.',
  'Third, make the boring parts fast: billing, onboarding, support.',
  'Fourth, share the progress, even when it is small. People follow stories.',
  'Finally: keep the loop short. Ship, ask, adjust.',
];

const linkTargets = [
  {
    host: 'blog.example.com',
    path: 'posts/what-we-learned-shipping-weekly',
    title: 'What we learned shipping every week for a year',
    description: 'Fifty-two releases, three pivots and one very patient support team.',
  },
  {
    host: 'docs.example.org',
    path: 'guides/getting-started',
    title: 'Getting started guide',
    description: 'Set up your first project in five minutes.',
  },
  {
    host: 'news.example.net',
    path: 'markets/2024/earnings-season-preview',
    title: 'Earnings season preview: what to watch',
    description: 'Guidance, margins and the questions analysts will ask.',
  },
];

/** Where a post sits, as the sandbox knows it. */
type Place =
  | { kind: 'publication'; accountExternalId: string; text: string; createdAt: string }
  | { kind: 'root' }
  | { kind: 'thread'; rootId: string; position: number }
  | { kind: 'reply'; rootId: string; position: number };

function snowflakeTime(id: string): number | null {
  try {
    const ms = Number(BigInt(id) >> 22n) + snowflakeEpochMs;
    return Number.isFinite(ms) ? ms : null;
  } catch {
    return null;
  }
}

/** A generated post's creation time: the id's own (a real X id), else a time in 2024 drawn from the id. */
function rootCreatedAt(id: string, now: Date): number {
  const t = snowflakeTime(id);
  if (t !== null && t >= snowflakeEpochMs && t <= now.getTime()) return t;
  return fallbackEpochMs + Math.floor(draws(`time:${id}`)[0]! * 365 * dayMs);
}

const authorOf = (label: string): SandboxAuthor => pick(authors, draws(`author:${label}`)[0]!);

function mediaFor(id: string, base: string): XMedia[] {
  const [kind = 0, count = 0, size = 0, alt = 0] = draws(`media:${id}`);
  const at = (key: string, ext: string) => `${base}/v1/sandbox/x/media/${key}.${ext}`;
  if (kind < 0.55) return [];
  if (kind < 0.8) {
    return Array.from({ length: 1 + Math.floor(count * 4) }, (_, i) => {
      const key = `3_${id}${i}`;
      const [width, height] = size < 0.5 ? [1200, 675] : [1080, 1350];
      return {
        key,
        type: 'photo' as const,
        url: at(key, 'jpg'),
        previewImageUrl: null,
        altText: alt < 0.6 ? `Screenshot ${i + 1}: a chart of weekly signups` : null,
        width,
        height,
        durationMs: null,
        variants: [],
      };
    });
  }
  if (kind < 0.9) {
    const key = `7_${id}`;
    return [
      {
        key,
        type: 'video',
        url: null,
        previewImageUrl: at(`${key}_preview`, 'jpg'),
        altText: null,
        width: 1280,
        height: 720,
        durationMs: 8_000 + Math.floor(count * 112_000),
        variants: [
          { url: at(`${key}/pl`, 'm3u8'), contentType: 'application/x-mpegURL', bitRate: null },
          { url: at(`${key}/480x270`, 'mp4'), contentType: 'video/mp4', bitRate: 256_000 },
          { url: at(`${key}/640x360`, 'mp4'), contentType: 'video/mp4', bitRate: 832_000 },
          { url: at(`${key}/1280x720`, 'mp4'), contentType: 'video/mp4', bitRate: 2_176_000 },
        ],
      },
    ];
  }
  const key = `16_${id}`;
  return [
    {
      key,
      type: 'animated_gif',
      url: null,
      previewImageUrl: at(`${key}_preview`, 'jpg'),
      altText: null,
      width: 498,
      height: 280,
      durationMs: null,
      variants: [{ url: at(key, 'mp4'), contentType: 'video/mp4', bitRate: 0 }],
    },
  ];
}

const shortCode = (label: string) =>
  createHash('sha256').update(label).digest('base64url').replace(/[-_]/g, 'x').slice(0, 10);

export function createSandboxXReads(deps: SandboxXReadsDeps) {
  const { db, base } = deps;

  const authorView = (a: SandboxAuthor): XAuthor => ({
    id: sandboxAuthorId(a.handle),
    handle: a.handle,
    name: a.name,
    verified: a.verified,
    followers: a.followers,
    profileImageUrl: `${base}/v1/sandbox/x/media/profile_${a.handle}.jpg`,
    bio: a.bio,
  });

  async function accountAuthor(externalId: string): Promise<XAuthor> {
    const row = await db
      .selectFrom('sandbox_accounts')
      .select(['handle', 'name'])
      .where('platform', '=', 'x')
      .where('external_id', '=', externalId)
      .executeTakeFirst();
    return {
      id: externalId,
      handle: row?.handle ?? null,
      name: row?.name ?? null,
      verified: false,
      followers: audienceOf(externalId, deps.now()).followers,
      profileImageUrl: null,
      bio: 'Sandbox account on X: posts stay on this service.',
    };
  }

  async function placeOf(id: string): Promise<Place> {
    const publication = await db
      .selectFrom('sandbox_publications')
      .select(['account_external_id', 'text', 'status', 'ready_at', 'created_at'])
      .where('platform', '=', 'x')
      .where('external_id', '=', id)
      .orderBy('id')
      .executeTakeFirst();
    if (publication)
      return {
        kind: 'publication',
        accountExternalId: publication.account_external_id,
        text: publication.text,
        createdAt: new Date(publication.created_at).toISOString(),
      };
    const known = await db
      .selectFrom('sandbox_x_posts')
      .select(['conversation_id', 'role', 'position'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (known) return { kind: known.role, rootId: known.conversation_id, position: known.position };
    return { kind: 'root' };
  }

  /** Whether the post is there to read (publications deleted since, ids ending 404 or 403 are not). */
  async function missing(id: string): Promise<'not_found' | 'not_authorized' | null> {
    const known = await db.selectFrom('sandbox_x_posts').select('id').where('id', '=', id).executeTakeFirst();
    if (known) return null;
    const rows = await db
      .selectFrom('sandbox_publications')
      .select('status')
      .where('platform', '=', 'x')
      .where('external_id', '=', id)
      .execute();
    if (rows.length > 0) return rows.every((r) => r.status === 'deleted') ? 'not_found' : null;
    if (id.endsWith('404')) return 'not_found';
    if (id.endsWith('403')) return 'not_authorized';
    return null;
  }

  /** How many thread parts and replies a root post has now (replies keep coming as the post grows). */
  function conversationSize(
    rootId: string,
    createdAt: number,
    now: Date,
  ): { thread: number; replies: number } {
    const [hasThread = 0, length = 0] = draws(`conversation:${rootId}`);
    const metrics = sandboxMetrics({
      platform: 'x',
      externalId: rootId,
      publishedAt: new Date(createdAt).toISOString(),
      timezone: 'UTC',
      now,
    });
    return {
      thread: hasThread < 0.4 ? 1 + Math.floor(length * 5) : 0,
      replies: Math.min(metrics.replies, 40),
    };
  }

  const childCreatedAt = (rootAt: number, role: 'thread' | 'reply', position: number, rootId: string) =>
    role === 'thread'
      ? rootAt + position * 60_000
      : rootAt + Math.floor((position + draws(`reply-time:${rootId}:${position}`)[0]!) * 37 * 60_000);
  const childId = (rootId: string, rootAt: number, role: 'thread' | 'reply', position: number) =>
    snowflakeId(childCreatedAt(rootAt, role, position, rootId), `${rootId}:${role}:${position}`);

  /** A conversation's root as its children see it: when it was made and by whom. */
  async function rootOf(rootId: string, now: Date): Promise<{ at: number; author: XAuthor }> {
    const place = await placeOf(rootId);
    if (place.kind === 'publication')
      return {
        at: Date.parse(place.createdAt),
        author: await accountAuthor(place.accountExternalId),
      };
    return { at: rootCreatedAt(rootId, now), author: authorView(authorOf(rootId)) };
  }

  function metricsOf(id: string, createdAt: number, now: Date, scale = 1): XPost['metrics'] {
    const m = sandboxMetrics({
      platform: 'x',
      externalId: id,
      publishedAt: new Date(createdAt).toISOString(),
      timezone: 'UTC',
      now,
    });
    const s = (n: number) => Math.round(n * scale);
    return {
      likes: s(m.likes),
      reposts: s(m.reposts),
      replies: s(m.replies),
      quotes: s(m.quotes),
      bookmarks: s(m.bookmarks ?? 0),
      impressions: m.impressions === null ? null : s(m.impressions),
    };
  }

  function linkOf(id: string): XLink {
    const target = pick(linkTargets, draws(`link:${id}`)[1]!);
    return {
      url: `https://t.co/${shortCode(id)}`,
      expandedUrl: `https://${target.host}/${target.path}`,
      title: target.title,
      description: target.description,
    };
  }

  /** A post in the spec's shape from where it sits; `references` false for a referenced post. */
  async function build(
    id: string,
    place: Place,
    options: { includeMedia: boolean; references: boolean },
    now: Date,
  ): Promise<XPost> {
    const [opener = 0, body = 0, tag = 0, cash = 0, mention = 0, link = 0, quote = 0, lang = 0] = draws(
      `post:${id}`,
    );
    let author: XAuthor;
    let text: string;
    let createdAt: number;
    let conversationId = id;
    let inReplyToPostId: string | null = null;
    let hashtags: string[] = [];
    let mentions: string[] = [];
    let tickers: string[] = [];
    let links: XLink[] = [];
    let media: XMedia[] = [];
    let quoted: string | null = null;
    let scale = 1;

    if (place.kind === 'publication') {
      author = await accountAuthor(place.accountExternalId);
      text = place.text;
      createdAt = Date.parse(place.createdAt);
      hashtags = [...text.matchAll(/#(\w+)/g)].map((m) => m[1]!);
      mentions = [...text.matchAll(/@(\w{1,15})/g)].map((m) => m[1]!);
      tickers = [...text.matchAll(/\$([A-Za-z]{1,6})\b/g)].map((m) => m[1]!);
    } else if (place.kind === 'root') {
      const who = authorOf(id);
      author = authorView(who);
      createdAt = rootCreatedAt(id, now);
      hashtags = [pick(who.topics, tag)];
      const other = authors.filter((a) => a.handle !== who.handle);
      if (mention < 0.3) mentions = [pick(other, mention / 0.3).handle];
      if (who.topics.includes('stocks') || cash < 0.1) tickers = [pick(cashtags, cash)];
      if (link < 0.35) links = [linkOf(id)];
      media = mediaFor(id, base);
      if (quote < 0.15)
        quoted = snowflakeId(createdAt - (1 + Math.floor(quote * 100)) * hourMs, `quote:${id}`);
      const parts = conversationSize(id, createdAt, now).thread;
      text = [
        parts > 0 ? `1/${parts + 1}` : '',
        `${pick(openers, opener)} ${pick(bodies, body)}`,
        mentions.length ? `h/t @${mentions[0]}` : '',
        tickers.length ? `Watching $${tickers[0]} closely.` : '',
        links.length ? links[0]!.url : '',
        `#${hashtags[0]}`,
      ]
        .filter(Boolean)
        .join(' ');
    } else {
      const root = await rootOf(place.rootId, now);
      conversationId = place.rootId;
      createdAt = childCreatedAt(root.at, place.kind, place.position, place.rootId);
      if (place.kind === 'thread') {
        author = root.author;
        const size = conversationSize(place.rootId, root.at, now).thread;
        text = `${place.position + 1}/${size + 1} ${threadLines[(place.position - 1) % threadLines.length]}`;
        inReplyToPostId =
          place.position === 1 ? place.rootId : childId(place.rootId, root.at, 'thread', place.position - 1);
        scale = 0.4;
      } else {
        const others = authors.filter((a) => a.handle !== root.author.handle);
        const who = pick(others, draws(`replier:${place.rootId}:${place.position}`)[0]!);
        author = authorView(who);
        const handle = root.author.handle ?? 'i';
        mentions = root.author.handle ? [root.author.handle] : [];
        text = `@${handle} ${pick(replyLines, body)}`;
        inReplyToPostId = place.rootId;
        scale = 0.08;
      }
    }

    const references: XPost['referencedPosts'] = [];
    if (options.references) {
      if (inReplyToPostId) {
        const target = await read(inReplyToPostId, { ...options, references: false }, now);
        references.push({ type: 'replied_to', id: inReplyToPostId, post: target });
      }
      if (quoted) {
        const target = await read(quoted, { ...options, references: false }, now);
        references.push({ type: 'quoted', id: quoted, post: target });
      }
    }
    return {
      id,
      url: author.handle ? `https://x.com/${author.handle}/status/${id}` : `https://x.com/i/web/status/${id}`,
      text,
      createdAt: new Date(createdAt).toISOString(),
      lang: lang < 0.9 ? 'en' : 'de',
      author,
      metrics: metricsOf(id, createdAt, now, scale),
      conversationId,
      inReplyToPostId,
      links,
      hashtags,
      mentions,
      cashtags: tickers,
      possiblySensitive: false,
      mediaCount: media.length,
      media: options.includeMedia ? media : [],
      referencedPosts: references,
    };
  }

  async function read(
    id: string,
    options: { includeMedia: boolean; references: boolean },
    now: Date,
  ): Promise<XPost | null> {
    if (await missing(id)) return null;
    return build(id, await placeOf(id), options, now);
  }

  /** The account's audience at `at`: followers grow a few a day, with daily ups and downs. */
  function audienceOf(externalId: string, at: Date) {
    const [base0 = 0, rate = 0, following = 0, posts = 0] = draws(`audience:${externalId}`);
    const days = Math.floor((at.getTime() - fallbackEpochMs) / dayMs);
    const date = new Date(fallbackEpochMs + days * dayMs).toISOString().slice(0, 10);
    const wiggle = Math.floor(draws(`audience:${externalId}:${date}`)[0]! * 7) - 3;
    return {
      followers: Math.max(0, 1_200 + Math.floor(base0 * 4_800) + Math.floor(days * (1 + rate * 7)) + wiggle),
      following: 150 + Math.floor(following * 750),
      postCount: 500 + Math.floor(posts * 4_500) + Math.floor(days * 2.1),
    };
  }

  /** The account's posts "made elsewhere" on one UTC day: 0–3 posts and 0–4 replies, in waking hours. */
  function elsewhere(
    externalId: string,
    dayStart: number,
  ): Array<{ id: string; at: number; kind: 'post' | 'reply' }> {
    const date = new Date(dayStart).toISOString().slice(0, 10);
    const [posts = 0, replies = 0] = draws(`elsewhere:${externalId}:${date}`);
    const made: Array<{ id: string; at: number; kind: 'post' | 'reply' }> = [];
    const add = (kind: 'post' | 'reply', n: number) => {
      for (let i = 0; i < n; i++) {
        const [hour = 0, minute = 0] = draws(`elsewhere:${externalId}:${date}:${kind}:${i}`);
        const at = dayStart + (7 + Math.floor(hour * 15)) * hourMs + Math.floor(minute * 60) * 60_000;
        made.push({ id: snowflakeId(at, `elsewhere:${externalId}:${date}:${kind}:${i}`), at, kind });
      }
    };
    add('post', Math.floor(posts * 4));
    add('reply', Math.floor(replies * 5));
    return made;
  }

  return {
    async readXPosts(context: CallContext, request: XPostsRequest): Promise<XPostsResult> {
      await deps.authorize(context);
      const now = deps.now();
      const result: XPostsResult = { posts: [], missing: [] };
      for (const id of [...new Set(request.ids)]) {
        const reason = await missing(id);
        if (reason) result.missing.push({ id, reason });
        else
          result.posts.push(
            await build(id, await placeOf(id), { includeMedia: request.includeMedia, references: true }, now),
          );
      }
      return result;
    },

    async readXConversation(
      context: CallContext,
      request: XConversationRequest,
    ): Promise<XConversationResult> {
      await deps.authorize(context);
      const now = deps.now();
      const rootId = request.conversationId;
      const place = await placeOf(rootId);
      // Only a root post opens a conversation here (a publication's has replies, no thread).
      if ((place.kind !== 'root' && place.kind !== 'publication') || (await missing(rootId)))
        return { thread: [], replies: [], hasMore: false };
      const root = await rootOf(rootId, now);
      const size = conversationSize(rootId, root.at, now);
      // A publication's conversation has replies, no thread (the sandbox keeps a thread's first post only).
      const threadSize = place.kind === 'root' ? size.thread : 0;
      const children = (role: 'thread' | 'reply', n: number) =>
        Array.from({ length: n }, (_, i) => ({
          id: childId(rootId, root.at, role, i + 1),
          role,
          position: i + 1,
        })).filter((c) => childCreatedAt(root.at, role, c.position, rootId) <= now.getTime());
      const byAuthor = request.authorId === root.author.id;
      const thread = byAuthor ? children('thread', threadSize) : [];
      const replies = request.includeReplies
        ? [...(byAuthor ? [] : children('thread', threadSize)), ...children('reply', size.replies)]
        : [];
      const keptThread = thread.slice(0, request.limit);
      const keptReplies = replies.slice(0, Math.max(0, request.limit - keptThread.length));
      const kept = [...keptThread, ...keptReplies];
      if (kept.length > 0)
        await db
          .insertInto('sandbox_x_posts')
          .values(
            kept.map((c) => ({ id: c.id, conversation_id: rootId, role: c.role, position: c.position })),
          )
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
      const options = { includeMedia: request.includeMedia, references: true };
      const posts = async (list: typeof kept) => {
        const built: XPost[] = [];
        for (const c of list)
          built.push(await build(c.id, { kind: c.role, rootId, position: c.position }, options, now));
        return built.sort((a, b) => Date.parse(a.createdAt!) - Date.parse(b.createdAt!));
      };
      return {
        thread: await posts(keptThread),
        replies: await posts(keptReplies),
        hasMore: kept.length < thread.length + replies.length,
      };
    },

    async readXAccountActivity(
      context: CallContext,
      request: XAccountActivityRequest,
    ): Promise<XAccountActivity> {
      await deps.authorize(context);
      const now = deps.now();
      const externalId = context.account.accountExternalId;
      const since = Date.parse(request.since);
      const posts: XAccountPost[] = [];
      const numbers = (id: string, at: number, kind: 'post' | 'reply') => {
        const m = sandboxMetrics({
          platform: 'x',
          externalId: id,
          publishedAt: new Date(at).toISOString(),
          timezone: request.timezone,
          now,
        });
        const scale = kind === 'reply' ? 0.25 : 1;
        const s = (n: number) => Math.round(n * scale);
        const impressions = m.impressions === null ? null : s(m.impressions);
        const [visits = 0, clicks = 0] = draws(`private:${id}`);
        const fresh = now.getTime() - at < privateNumbersMs;
        posts.push({
          id,
          createdAt: new Date(at).toISOString(),
          kind,
          likes: s(m.likes),
          reposts: s(m.reposts),
          replies: s(m.replies),
          quotes: s(m.quotes),
          bookmarks: s(m.bookmarks ?? 0),
          impressions,
          profileVisits:
            fresh && impressions !== null ? Math.round(impressions * (0.002 + 0.006 * visits)) : null,
          linkClicks: fresh && impressions !== null ? Math.round(impressions * 0.004 * clicks) : null,
        });
      };
      const publications = await db
        .selectFrom('sandbox_publications')
        .select(['external_id', 'status', 'ready_at', 'created_at'])
        .where('platform', '=', 'x')
        .where('account_external_id', '=', externalId)
        .where('status', '!=', 'deleted')
        .where('created_at', '>=', new Date(since).toISOString())
        .execute();
      for (const p of publications) {
        if (p.status === 'pending' && Date.parse(p.ready_at) > now.getTime()) continue;
        numbers(p.external_id, Date.parse(p.created_at), 'post');
      }
      for (let day = Math.floor(since / dayMs) * dayMs; day <= now.getTime(); day += dayMs)
        for (const made of elsewhere(externalId, day))
          if (made.at >= since && made.at <= now.getTime()) numbers(made.id, made.at, made.kind);
      posts.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
      return { audience: audienceOf(externalId, now), posts, truncated: false };
    },
  };
}

/** A sandbox author's X user id, from their handle (like a connected sandbox account's). */
export function sandboxAuthorId(handle: string): string {
  return derivedId(`author:${handle.toLowerCase()}`);
}
