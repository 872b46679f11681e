// The spec's post-group, post, approval and media shapes, the request bodies of the post-group, draft and post
// endpoints and the auditors' history, typed once in zod: requests are validated and the OpenAPI document
// generated from these.
import { z } from '@hono/zod-openapi';
import { groupStatuses, postStatuses, rejectReasons } from '../../domain/post-groups/post-group.js';
import { inputLimits } from '../../domain/post-groups/content-rules.js';
import { replySettingsValues } from '../../domain/post-groups/post-content.js';
import { platforms } from '../../domain/shared/platforms.js';
import { timezoneSchema } from '../shared/params.js';

export const platformSchema = z.enum(platforms).openapi('Platform');
export const replySettingsSchema = z.enum(replySettingsValues);

/** An instant with an offset; stored and answered in UTC. */
export const instantSchema = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value).toISOString())
  .openapi({ type: 'string', format: 'date-time', example: '2026-12-01T09:00:00Z' });

/**
 * Set by the service from the media library, never taken from the caller: a value sent is replaced (a GET's
 * media can be sent back as it is). The approval's content hash covers it, so it covers the file's bytes.
 */
const sha256Field = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .optional()
  .openapi({
    readOnly: true,
    description:
      'Hex SHA-256 of the file as the media library recorded it; set by the service (a value sent is ignored), ' +
      'absent for assets recorded before hashes were kept. Publishing refuses bytes that no longer match.',
  });

const imageItemShape = {
  assetId: z.uuid(),
  url: z.url(),
  contentType: z.string().min(1).max(100),
  sizeBytes: z.number().int().min(0),
  width: z.number().int().min(1).optional(),
  height: z.number().int().min(1).optional(),
  altText: z.string().max(inputLimits.altText).optional(),
  sha256: sha256Field,
};
const imageItemSchema = z.object(imageItemShape).strict();

export const mediaAssetSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('image'), ...imageItemShape }).strict(),
    z.object({ kind: z.literal('images'), images: z.array(imageItemSchema).min(1).max(35) }).strict(),
    z
      .object({
        kind: z.literal('document'),
        assetId: z.uuid(),
        url: z.url(),
        contentType: z.literal('application/pdf'),
        sizeBytes: z.number().int().min(0),
        title: z.string().min(1).max(400),
        pageCount: z.number().int().min(1).optional(),
        previewImageUrls: z.array(z.url()).max(300).optional(),
        sha256: sha256Field,
      })
      .strict(),
    z
      .object({
        kind: z.literal('video'),
        assetId: z.uuid(),
        url: z.url(),
        contentType: z.string().min(1).max(100),
        sizeBytes: z.number().int().min(0),
        durationSeconds: z.number().min(0),
        width: z.number().int().min(1),
        height: z.number().int().min(1),
        sha256: sha256Field,
      })
      .strict(),
  ])
  .openapi('MediaAsset');

export const redditSettingsSchema = z
  .object({
    subreddit: z.string().max(inputLimits.subreddit),
    title: z.string().max(inputLimits.redditTitle),
    flairId: z.string().max(100).optional(),
    nsfw: z.boolean().optional(),
    spoiler: z.boolean().optional(),
  })
  .strict();
export const youtubeSettingsSchema = z
  .object({
    title: z.string().max(inputLimits.youtubeTitle).optional(),
    privacyStatus: z.enum(['public', 'unlisted', 'private']).optional(),
    madeForKids: z.boolean().optional(),
  })
  .strict();
export const tiktokSettingsSchema = z
  .object({
    title: z.string().max(2200).optional(),
    isAigc: z.boolean().optional(),
    photoCoverIndex: z.number().int().min(0).optional(),
  })
  .strict();
export const pollSchema = z
  .object({
    options: z.array(z.string().max(inputLimits.pollOption)).max(inputLimits.pollOptions),
    durationMinutes: z.number().int(),
  })
  .strict()
  .openapi({ description: 'X poll: 2 to 4 options of up to 25 characters, 5 to 10,080 minutes' });

export const platformPayloadSchema = z
  .object({
    reddit: redditSettingsSchema.optional(),
    youtube: youtubeSettingsSchema.optional(),
    tiktok: tiktokSettingsSchema.optional(),
    thread: z.array(z.string().max(inputLimits.threadItem)).max(inputLimits.threadItems).optional(),
    quoteTweetUrl: z.string().max(2048).optional(),
    communityUrl: z.string().max(2048).optional(),
    replySettings: replySettingsSchema.optional(),
    poll: pollSchema.optional(),
  })
  .strict()
  .openapi('PlatformPayload', {
    description:
      'Platform-specific settings: reddit, youtube, tiktok, thread (further items published as replies), ' +
      'quoteTweetUrl, communityUrl, replySettings and poll (X). Each key applies to the platforms named in ' +
      'docs/decisions.md.',
  });

export const approvalSchema = z
  .object({
    id: z.uuid(),
    level: z.enum(['group', 'post']),
    groupId: z.uuid(),
    postId: z.uuid().nullable(),
    approvedByUserId: z.uuid(),
    approvedAt: z.string(),
    action: z.enum(['submit_for_approval', 'approved', 'reapproved', 'rejected']),
    assistant: z.object({ clientId: z.string(), clientName: z.string() }).optional().openapi({
      description:
        'Beyond the spec: the assistant that acted for approvedByUserId (absent when the user acted)',
    }),
  })
  .openapi('Approval');

export const postGroupSchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid(),
    title: z.string(),
    topic: z.string().nullable(),
    objective: z.string().nullable(),
    status: z.enum(groupStatuses),
    timezone: z.string(),
    scheduledFor: z.string().nullable(),
    approvedBy: z.uuid().nullable(),
    approvedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    scheduleReason: z.string().nullable().optional(),
    tagIds: z.array(z.uuid()).optional(),
    approvals: z.array(approvalSchema).optional(),
    strategyId: z.uuid().nullable().optional(),
    strategyVersion: z.number().int().nullable().optional(),
    pillarId: z.string().nullable().optional(),
    priorityId: z.string().nullable().optional(),
    contentType: z.string().nullable().optional(),
    opportunityId: z.string().nullable().optional(),
  })
  .openapi('PostGroup');

export const postSchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid(),
    groupId: z.uuid(),
    platform: platformSchema,
    socialAccountId: z.uuid().nullable(),
    status: z.enum(postStatuses),
    scheduledForUtc: z.string().nullable(),
    contentText: z.string(),
    media: mediaAssetSchema.nullable(),
    platformPayload: platformPayloadSchema.nullable(),
    publishedExternalId: z.string().nullable(),
    publishedUrl: z.string().nullable(),
    attemptCount: z.number().int(),
    lastAttemptAt: z.string().nullable(),
    nextRetryAt: z.string().nullable(),
    lastError: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    scheduleReason: z.string().nullable().optional(),
    approvals: z.array(approvalSchema).optional(),
  })
  .openapi('Post');

export const groupWithPostsSchema = z
  .object({ group: postGroupSchema, posts: z.array(postSchema) })
  .openapi('PostGroupWithPosts');

const title = z.string().trim().min(1).max(300);
const shortText = z.string().trim().max(500);
const contentText = z.string().max(inputLimits.contentText);
const tagIds = z.array(z.uuid()).max(50);

/** What every new post carries, in post groups and drafts alike. */
const newPostShape = {
  platform: platformSchema,
  contentText,
  socialAccountId: z.uuid().optional(),
  media: mediaAssetSchema.optional(),
};

export const createPostGroupBody = z
  .object({
    title,
    posts: z
      .array(
        z
          .object({
            ...newPostShape,
            platformPayload: platformPayloadSchema.optional(),
            replySettings: replySettingsSchema.optional(),
          })
          .strict(),
      )
      .min(1)
      .max(20),
    topic: shortText.optional(),
    objective: shortText.optional(),
    timezone: timezoneSchema.optional(),
    scheduledFor: instantSchema.optional(),
    tagIds: tagIds.optional(),
    strategyId: z.uuid().optional(),
    strategyVersion: z.number().int().min(1).optional(),
    pillarId: z.string().max(200).optional(),
    priorityId: z.string().max(200).optional(),
    contentType: z.string().max(200).optional(),
    opportunityId: z.string().max(200).optional(),
  })
  .strict()
  .openapi('CreatePostGroup');

export const createDraftBody = z
  .object({
    title,
    posts: z
      .array(
        z
          // Drafts take the platform settings beside the post; they are kept in its platformPayload.
          .object({ ...newPostShape, ...platformPayloadSchema.shape })
          .strict(),
      )
      .min(1)
      .max(9),
    topic: shortText.optional(),
    objective: shortText.optional(),
  })
  .strict()
  .openapi('CreateDraft');

export const updatePostGroupBody = z
  .object({
    title: title.optional(),
    topic: shortText.nullable().optional(),
    objective: shortText.nullable().optional(),
    timezone: timezoneSchema.optional(),
    scheduledFor: instantSchema.nullable().optional(),
    status: z.enum(groupStatuses).optional(),
    tagIds: tagIds.optional(),
  })
  .strict()
  .openapi('UpdatePostGroup');

export const approveBody = z
  .object({
    approvePosts: z.array(z.uuid()).max(20).optional(),
    autoSchedule: z.boolean().optional().openapi({ description: 'Assign the best free slot (default true)' }),
    scheduledForUtc: instantSchema.optional(),
    timezone: timezoneSchema.optional(),
  })
  .strict()
  .openapi('ApprovePostGroup');

export const rejectBody = z
  .object({
    rejectPosts: z.array(z.uuid()).max(20).optional(),
    reason: z.enum(rejectReasons).optional(),
    note: z.string().max(2000).optional(),
  })
  .strict()
  .openapi('RejectPostGroup');

export const scheduleBody = z
  .object({
    scheduledForUtc: instantSchema.optional(),
    useBestSlot: z.boolean().optional(),
    timezone: timezoneSchema.optional(),
    postIds: z.array(z.uuid()).max(20).optional(),
  })
  .strict()
  .openapi('SchedulePostGroup');

export const updatePostBody = z
  .object({
    socialAccountId: z.uuid().optional(),
    status: z.enum(postStatuses).optional(),
    scheduledForUtc: instantSchema.optional(),
    contentText: contentText.optional(),
    media: mediaAssetSchema.optional(),
    platformPayload: platformPayloadSchema.optional(),
    quoteTweetUrl: z.string().max(2048).nullable().optional(),
    communityUrl: z.string().max(2048).nullable().optional(),
    replySettings: replySettingsSchema.nullable().optional(),
    poll: pollSchema.nullable().optional(),
  })
  .strict()
  .openapi('UpdatePost');

const actorSchema = z
  .object({
    type: z.enum(['user', 'assistant', 'system']),
    userId: z.uuid().nullable(),
    clientId: z.string().optional(),
    clientName: z.string().nullable().optional().openapi({
      description: 'For an assistant: the client name its user approved (null for older events)',
    }),
  })
  .openapi('AuditActor');

const auditEntrySchema = z
  .object({
    revision: z.number().int().openapi({ description: 'Revision of the event in the group stream' }),
    occurredAt: z.string(),
    actor: actorSchema,
    action: approvalSchema.shape.action,
    level: approvalSchema.shape.level,
    postId: z.uuid().nullable(),
    reason: z.string().nullable(),
    note: z.string().nullable(),
    cause: z
      .string()
      .nullable()
      .openapi({ description: 'For submissions: created, submitted, group_edited or post_edited' }),
    contentHash: z.string().openapi({
      description: 'sha256 of the content acted on; for a group-level entry, over all its posts’ hashes',
    }),
    posts: z.array(z.object({ postId: z.uuid(), contentHash: z.string() })),
  })
  .openapi('AuditEntry');

export const historyQuery = z
  .object({
    revision: z.coerce
      .number()
      .int()
      .min(0)
      .optional()
      .openapi({ type: 'integer', minimum: 0, description: 'Stream revision to stop at (inclusive)' }),
    asOf: instantSchema
      .optional()
      .openapi({ description: 'Instant to stop at (events that occurred by then)' }),
  })
  .strict()
  .refine((q) => q.revision === undefined || q.asOf === undefined, {
    message: 'give revision or asOf, not both',
    path: ['asOf'],
  });

export const postGroupHistorySchema = z
  .object({
    groupId: z.uuid(),
    revision: z.number().int(),
    asOf: z.string().nullable(),
    entries: z.array(auditEntrySchema),
    group: postGroupSchema,
    posts: z.array(postSchema),
  })
  .openapi('PostGroupHistory');
