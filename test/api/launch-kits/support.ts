// What the launch kit API tests share: the kit's shape as answered, calls to ORG/launch-kits and answer checks.
import { expect } from 'vitest';
import type { TestService } from '../../support/runtime.js';
import type { TestWorkspace } from '../../support/workspace.js';

export interface Step {
  id: string;
  day: number;
  date: string;
  time: string | null;
  scheduledForUtc: string | null;
  kind: 'post' | 'listing' | 'task';
  channel: string | null;
  title: string;
  detail: string;
  groupId: string | null;
  platform: string | null;
  postStatus: string | null;
  postText: string | null;
  done: boolean;
}
export interface Kit {
  id: string;
  orgId: string;
  productName: string;
  pitch: string;
  url: string | null;
  launchDate: string;
  timezone: string;
  channels: string[];
  productHunt: {
    name: string;
    tagline: string;
    description: string;
    topics: string[];
    firstComment: string;
    galleryIdeas: string[];
  } | null;
  hackerNews: { title: string; url: string | null; text: string } | null;
  steps: Step[];
  createdAt: string;
  updatedAt: string;
}
export interface Created {
  kit: Kit;
  providerModel: string;
  creditsUsed: number;
  remainingCredits: number;
}
export interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}

export const kitsPath = (ws: TestWorkspace, rest = '') => `/v1/orgs/${ws.orgId}/launch-kits${rest}`;

export function kitCalls(service: TestService) {
  const call = (
    ws: TestWorkspace,
    method: string,
    rest: string,
    body?: unknown,
    options: { role?: keyof TestWorkspace['tokens']; headers?: Record<string, string> } = {},
  ) =>
    service.request(method, kitsPath(ws, rest), {
      token: ws.tokens[options.role ?? 'owner'],
      ...(body !== undefined ? { body } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
    });
  return { call };
}

export async function answer<T>(res: Response, status = 200): Promise<T> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

export async function refused(res: Response, status: number): Promise<ErrorBody> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as ErrorBody;
}
