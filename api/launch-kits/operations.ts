// The launch kits' operations (spec part 2, "Launch kits"): GET ORG/launch-kits (list_launch_kits), POST
// (create_launch_kit), GET ORG/launch-kits/{kitId} (get_launch_kit) and PATCH (update_launch_step).
import {
  createLaunchKit,
  getKit,
  listKits,
  updateLaunchStep,
  type LaunchKitDeps,
} from '../../commands/launch-kits/launch-kit-use-cases.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { billingServices } from '../billing/services.js';
import { postGroupUseCaseDeps } from '../post-groups/deps.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import {
  createdLaunchKitSchema,
  createLaunchKitBody,
  kitParams,
  launchKitPageSchema,
  launchKitSchema,
  listKitsQuery,
  updateLaunchStepBody,
} from './schemas.js';

const operation = operationsWith<LaunchKitDeps>();
const path = '/v1/orgs/{orgId}/launch-kits';
const kitPath = `${path}/{kitId}`;
const describeKit = { kitId: 'The launch kit' };

type KitAnswer = { id: string; productName: string; launchDate: string; steps: { done: boolean }[] };
const kitSummary = (kit: KitAnswer) =>
  `Launch kit ${kit.id} for ${kit.productName} on ${kit.launchDate}: ${kit.steps.filter((s) => s.done).length} of ${kit.steps.length} steps done.`;

export const launchKitOperations = operationGroup(
  (ctx): LaunchKitDeps => {
    const credits = ctx.use(billingServices).credits;
    return {
      ...ctx.services,
      aiJobs: ctx.use(aiJobsService),
      brandContext: ctx.use(brandContextService),
      postGroups: postGroupUseCaseDeps(ctx),
      remainingCredits: async (orgId) => (await credits.summaryOf(orgId)).creditBalance.total,
    };
  },
  [
    operation({
      name: 'list_launch_kits',
      kind: 'read',
      method: 'get',
      path,
      tags: ['launch'],
      summary: "The workspace's launch kits, newest first",
      description: 'Tool: list_launch_kits. Page size default 20, maximum 100.',
      params: orgParams,
      query: listKitsQuery,
      output: launchKitPageSchema,
      outputDescription: 'A page of launch kits',
      errors: [400, 401, 403],
      access: { permission: 'posts:read', scope: 'mcp:read' },
      tool: {
        title: 'List launch kits',
        description:
          "Lists the workspace's product launch kits, newest first: product name, launch date, time zone, " +
          'channels and how many of the plan steps are done. Use get_launch_kit for the copy and the plan. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: (page) =>
          page.total === 0
            ? 'The workspace has no launch kits.'
            : `${page.total} launch kit(s); this page: ${page.items.map((k) => `${k.productName} (${k.launchDate}, ${k.doneCount}/${k.stepCount} done)`).join(', ')}.`,
      },
      run: (deps, { caller }, input) => listKits(deps, caller, input),
    }),
    operation({
      name: 'create_launch_kit',
      kind: 'write',
      method: 'post',
      path,
      tags: ['launch'],
      summary:
        'Write a launch kit: listing and post copy, launch posts drafted into review (pending approval) and a day-by-day plan; never schedules or publishes',
      description:
        'Tool: create_launch_kit. Uses credits (ai_launch_kit) when a model writes the copy. Channels: product_hunt, ' +
        'hacker_news, x, linkedin, reddit (reddit needs subreddits).',
      params: orgParams,
      body: createLaunchKitBody,
      output: createdLaunchKitSchema,
      outputDescription: 'The kit, the model that wrote it and the credits',
      status: 201,
      errors: [400, 401, 402, 403, 409, 422, 429, 503],
      // Writing the copy may spend credits: a paid action, as generating a strategy.
      access: { permission: 'posts:draft', scope: 'posts:write', billing: 'paid' },
      tool: {
        title: 'Create a product launch kit',
        description:
          'Writes a product launch kit from a pitch and a launch date (YYYY-MM-DD, in the workspace time zone): ' +
          'Product Hunt listing copy (name, tagline, description, topics, first comment, gallery ideas), a Show HN ' +
          'post, launch posts for the social channels (x, linkedin, reddit with subreddits) drafted into review as ' +
          'pending_approval, and a day-by-day plan from a week before to three days after the launch with suggested ' +
          'times (scheduledForUtc). Nothing is scheduled or published: a person approves each post. Uses credits.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        summary: ({ kit, creditsUsed }) =>
          `Created launch kit ${kit.id} for ${kit.productName} on ${kit.launchDate} with ${kit.steps.length} steps; ` +
          `${kit.steps.filter((s) => s.groupId).length} post(s) wait for approval. ${creditsUsed} credit(s) used.`,
      },
      run: (deps, { caller, request }, input) => createLaunchKit(deps, caller, input, request),
    }),
    operation({
      name: 'get_launch_kit',
      kind: 'read',
      method: 'get',
      path: kitPath,
      tags: ['launch'],
      summary: 'A launch kit with the current status of its drafted posts',
      description: 'Tool: get_launch_kit.',
      params: kitParams,
      output: launchKitSchema,
      outputDescription: 'The launch kit',
      errors: [400, 401, 403, 404],
      access: { permission: 'posts:read', scope: 'mcp:read' },
      tool: {
        title: 'Get a launch kit',
        description:
          'Returns a launch kit: the Product Hunt and Show HN copy and the day-by-day plan; each step has its day ' +
          'relative to launch, local date and time, suggested scheduledForUtc, and for posts the post group, its ' +
          'current status (pending_approval until a person approves) and text. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        describe: describeKit,
        summary: kitSummary,
      },
      run: (deps, { caller }, input) => getKit(deps, caller, input),
    }),
    operation({
      name: 'update_launch_step',
      kind: 'write',
      method: 'patch',
      path: kitPath,
      tags: ['launch'],
      summary: 'Mark a step of a launch kit done or not done',
      description: 'Tool: update_launch_step.',
      params: kitParams,
      body: updateLaunchStepBody,
      output: launchKitSchema,
      outputDescription: 'The launch kit',
      errors: [400, 401, 402, 403, 404, 422, 503],
      access: { permission: 'posts:draft', scope: 'posts:write' },
      tool: {
        title: 'Mark a launch step done',
        description:
          'Marks one step of a launch kit done (done: true) or not done (false), by its stepId (step-1, step-2, …). ' +
          'Changes nothing else: posts stay as they are.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        describe: describeKit,
        summary: kitSummary,
      },
      run: (deps, { caller, request }, input) => updateLaunchStep(deps, caller, input, request),
    }),
  ],
);
