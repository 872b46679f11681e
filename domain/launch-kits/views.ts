// A launch kit as the API shows it (spec part 2, "Launch kit"): the kit with each step's post status and text as
// the post groups have them now, and the list item.
import type { GroupStatus } from '../post-groups/state.js';
import type { LaunchKitStep, LaunchKit } from './launch-kit.js';

export interface LaunchStepView extends Omit<LaunchKitStep, 'done'> {
  postStatus: GroupStatus | null;
  postText: string | null;
  done: boolean;
}

export type LaunchKitView = Pick<
  LaunchKit,
  | 'id'
  | 'orgId'
  | 'productName'
  | 'pitch'
  | 'url'
  | 'launchDate'
  | 'timezone'
  | 'channels'
  | 'productHunt'
  | 'hackerNews'
  | 'createdAt'
  | 'updatedAt'
> & { steps: LaunchStepView[] };

export interface LaunchKitListItem {
  id: string;
  productName: string;
  launchDate: string;
  timezone: string;
  channels: LaunchKit['channels'];
  createdAt: string;
  stepCount: number;
  doneCount: number;
}

/** The current state of a drafted post, by group id; a group that is gone shows null. */
export type DraftedPosts = ReadonlyMap<string, { status: GroupStatus; text: string | null }>;

export function launchKitView(kit: LaunchKit, drafted: DraftedPosts): LaunchKitView {
  return {
    id: kit.id,
    orgId: kit.orgId,
    productName: kit.productName,
    pitch: kit.pitch,
    url: kit.url,
    launchDate: kit.launchDate,
    timezone: kit.timezone,
    channels: kit.channels,
    productHunt: kit.productHunt,
    hackerNews: kit.hackerNews,
    steps: kit.steps.map(({ done, ...step }) => {
      const post = step.groupId ? drafted.get(step.groupId) : undefined;
      return { ...step, postStatus: post?.status ?? null, postText: post?.text ?? null, done };
    }),
    createdAt: kit.createdAt,
    updatedAt: kit.updatedAt,
  };
}

export function launchKitListItem(row: {
  kit: LaunchKit;
  stepCount: number;
  doneCount: number;
}): LaunchKitListItem {
  const { kit } = row;
  return {
    id: kit.id,
    productName: kit.productName,
    launchDate: kit.launchDate,
    timezone: kit.timezone,
    channels: kit.channels,
    createdAt: kit.createdAt,
    stepCount: row.stepCount,
    doneCount: row.doneCount,
  };
}
