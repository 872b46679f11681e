// Long texts through the whole service: a request at the caps is answered while /healthz keeps answering (the
// X count used to block the process for seconds), and a request past them is a 400 naming the field, on post
// groups, drafts and post edits alike.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inputLimits } from '../../../domain/post-groups/content-rules.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  connectPremiumXAccount,
  data,
  failure,
  workspaceClient,
  type GroupWithPosts,
  type WorkspaceClient,
} from './support.js';

let service: TestService;
let ws: TestWorkspace;
let api: WorkspaceClient;
/** An X account with X Premium: 25,000 weighted characters a post. */
let premium: string;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  api = workspaceClient(service, ws);
  premium = await connectPremiumXAccount(service, ws);
});
afterAll(async () => service.stop());

const repeat = (unit: string, length: number) =>
  unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
/** 24,999 once weighted (CJK counts 2), one "." that twitter-text's URL search used to take seconds over. */
const japanese = `${repeat('日本語の文章です', 12_499)}.`;

/**
 * Sends a request while asking /healthz over and over, and answers the request's status and body with the
 * longest time between two /healthz answers (or the request's end): a process blocked by the request shows as
 * a long gap.
 */
async function whileProbing(send: () => Promise<Response>) {
  let done = false;
  const beats = [performance.now()];
  const probing = (async () => {
    while (!done) {
      const health = await service.request('GET', '/healthz');
      expect(health.status).toBe(200);
      await health.text();
      beats.push(performance.now());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  // Let the probe answer once before the request starts.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const res = await send();
  const body = await res.text();
  // A block at the very end of the request ends before the next /healthz answer: its end counts as a beat.
  beats.push(performance.now());
  done = true;
  await probing;
  beats.sort((a, b) => a - b);
  const longestGapMs = Math.max(...beats.slice(1).map((beat, i) => beat - beats[i]!));
  return { status: res.status, body: JSON.parse(body) as unknown, longestGapMs };
}

/** Gaps between /healthz answers stay well under a second (the blocked process answered after seconds). */
const healthzGapMs = 1000;

describe('at the caps: answered, and the process keeps answering meanwhile', () => {
  test('an X Premium post and thread of 24,999 weighted characters each are taken', async () => {
    const body = {
      title: 'Long Japanese thread',
      posts: [
        {
          platform: 'x',
          socialAccountId: premium,
          contentText: japanese,
          platformPayload: { thread: [japanese, japanese] },
        },
      ],
    };
    const {
      status,
      body: answer,
      longestGapMs,
    } = await whileProbing(() => api.call('POST', '/post-groups', { as: 'editor', body }));
    expect(status, JSON.stringify(answer).slice(0, 500)).toBe(200);
    expect((answer as { data: GroupWithPosts }).data.posts[0]!.contentText).toBe(japanese);
    expect(longestGapMs).toBeLessThan(healthzGapMs);
  });

  test('50,000 characters of X text are counted and refused with the count when over the limit', async () => {
    const before = await eventCount(service);
    const body = {
      title: 'Dots',
      posts: [{ platform: 'x', socialAccountId: premium, contentText: repeat('a.', 50_000) }],
    };
    const {
      status,
      body: answer,
      longestGapMs,
    } = await whileProbing(() => api.call('POST', '/drafts', { as: 'editor', body }));
    expect(status).toBe(400);
    expect((answer as { details: unknown }).details).toEqual([
      {
        path: 'body.posts.0.contentText',
        message: expect.stringContaining('X Premium allows 25,000 characters') as string,
      },
    ]);
    expect(JSON.stringify(answer)).toContain('this text has 50,000');
    expect(longestGapMs).toBeLessThan(healthzGapMs);
    expect(await eventCount(service)).toBe(before);
  });
});

describe('past the caps: a 400 naming the field, before anything is counted', () => {
  const over = (length: number) => repeat('a.', length);

  test('X text past 50,000 characters, on a post group and a draft', async () => {
    for (const path of ['/post-groups', '/drafts']) {
      const body = {
        title: 'Too long',
        posts: [{ platform: 'x', socialAccountId: premium, contentText: over(50_001) }],
      };
      const {
        status,
        body: answer,
        longestGapMs,
      } = await whileProbing(() => api.call('POST', path, { as: 'editor', body }));
      expect(status).toBe(400);
      expect((answer as { details: unknown }).details).toEqual([
        {
          path: 'body.posts.0.contentText',
          message: expect.stringContaining('X text is limited to 50,000 before weighting') as string,
        },
      ]);
      expect(longestGapMs).toBeLessThan(healthzGapMs);
    }
  });

  test('each text field past its cap, with the field’s path', async () => {
    const cases: [string, string, unknown, string][] = [
      [
        '/post-groups',
        'body.posts.0.contentText',
        { title: 'T', posts: [{ platform: 'facebook', contentText: over(inputLimits.contentText + 1) }] },
        'expected string to have <=100000 characters',
      ],
      [
        '/post-groups',
        'body.posts.0.platformPayload.thread.1',
        {
          title: 'T',
          posts: [
            {
              platform: 'x',
              contentText: 'Hi',
              platformPayload: { thread: ['fine', over(inputLimits.threadItem + 1)] },
            },
          ],
        },
        'expected string to have <=50000 characters',
      ],
      [
        '/drafts',
        'body.posts.0.thread',
        {
          title: 'T',
          posts: [
            {
              platform: 'bluesky',
              contentText: 'Hi',
              thread: Array.from({ length: inputLimits.threadItems + 1 }, () => 'more'),
            },
          ],
        },
        'expected array to have <=50 items',
      ],
      [
        '/drafts',
        'body.posts.0.poll.options.0',
        {
          title: 'T',
          posts: [
            {
              platform: 'x',
              contentText: 'Hi',
              poll: { options: [over(inputLimits.pollOption + 1), 'b'], durationMinutes: 60 },
            },
          ],
        },
        'expected string to have <=50 characters',
      ],
      [
        '/drafts',
        'body.posts.0.reddit.title',
        {
          title: 'T',
          posts: [
            {
              platform: 'reddit',
              contentText: 'Hi',
              reddit: { subreddit: 'typescript', title: over(inputLimits.redditTitle + 1) },
            },
          ],
        },
        'expected string to have <=600 characters',
      ],
    ];
    const before = await eventCount(service);
    for (const [path, field, body, message] of cases) {
      const refused = await failure(await api.call('POST', path, { as: 'editor', body }), 400);
      expect(refused.details, field).toEqual([{ path: field, message: expect.stringContaining(message) }]);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('a post edit with a thread item past the cap', async () => {
    const created = await data<GroupWithPosts>(
      await api.call('POST', '/drafts', {
        as: 'editor',
        body: { title: 'Edit me', posts: [{ platform: 'x', contentText: 'Hi' }] },
      }),
    );
    const postId = created.posts[0]!.id;
    const before = await eventCount(service);
    const refused = await failure(
      await api.call('PATCH', `/posts/${postId}`, {
        as: 'editor',
        body: { platformPayload: { thread: [over(inputLimits.threadItem + 1)] } },
      }),
      400,
    );
    expect(refused.details).toEqual([
      {
        path: 'body.platformPayload.thread.0',
        message: expect.stringContaining('expected string to have <=50000 characters'),
      },
    ]);
    expect(await eventCount(service)).toBe(before);
  });
});
