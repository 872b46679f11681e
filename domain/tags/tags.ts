// The workspace tags aggregate: every tag of one workspace, with name uniqueness and the tag limit.
// One stream per workspace (`workspaceTags-<orgId>`) so that uniqueness is decided against a single state.
import { Conflict, InvalidFields, NotFound } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { tagEventCodec, type TagEvent } from './event-codec.js';

export const workspaceTagsCategory = 'workspaceTags';

export type { TagEvent } from './event-codec.js';

export const maxTagsPerWorkspace = 500;
export const maxTagNameLength = 50;
/** `#rgb` or `#rrggbb`; stored lower-case. */
export const tagColorPattern = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export type TagCommand =
  | { type: 'CreateTag'; orgId: string; tagId: string; name: string; color?: string | null; now: string }
  /** Omitted fields stay; `color: null` clears the colour. */
  | { type: 'UpdateTag'; tagId: string; name?: string; color?: string | null; now: string }
  | { type: 'DeleteTag'; tagId: string; now: string };

export interface Tag {
  tagId: string;
  orgId: string;
  name: string;
  color: string | null;
  createdAt: string;
  updatedAt: string;
}

export type WorkspaceTagsState =
  { status: 'empty' } | { status: 'active'; orgId: string; tags: Readonly<Record<string, Tag>> };

export function validateTagName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > maxTagNameLength) {
    throw new InvalidFields('Invalid tag name', [
      { path: 'name', message: `1 to ${maxTagNameLength} characters after trimming` },
    ]);
  }
  return trimmed;
}

export function normalizeTagColor(color: string | null | undefined): string | null {
  if (color === null || color === undefined) return null;
  if (!tagColorPattern.test(color)) {
    throw new InvalidFields('Invalid tag color', [
      { path: 'color', message: 'a hex colour, #rgb or #rrggbb' },
    ]);
  }
  return color.toLowerCase();
}

/** Names compare case-insensitively, like the read model's `lower(name)` index. */
const nameKey = (name: string) => name.toLowerCase();

function assertNameFree(tags: Readonly<Record<string, Tag>>, name: string, exceptTagId?: string): void {
  const key = nameKey(name);
  const holder = Object.values(tags).find((t) => t.tagId !== exceptTagId && nameKey(t.name) === key);
  if (holder) throw new Conflict(`A tag named "${holder.name}" already exists`, 'tag_name_taken');
}

export const workspaceTagsDecider: Decider<WorkspaceTagsState, TagCommand, TagEvent> = {
  initialState: { status: 'empty' },
  codec: tagEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'CreateTag': {
        const name = validateTagName(command.name);
        const color = normalizeTagColor(command.color);
        const tags = state.status === 'active' ? state.tags : {};
        const existing = tags[command.tagId];
        if (existing) {
          // The same creation again (a concurrent retry with one Idempotency-Key) changes nothing.
          if (existing.name === name && existing.color === color) return [];
          throw new Conflict('Tag already exists');
        }
        assertNameFree(tags, name);
        if (Object.keys(tags).length >= maxTagsPerWorkspace) {
          throw new Conflict(`A workspace has at most ${maxTagsPerWorkspace} tags`, 'tag_limit_reached');
        }
        return [
          {
            type: 'TagCreated',
            data: { orgId: command.orgId, tagId: command.tagId, name, color, createdAt: command.now },
          },
        ];
      }
      case 'UpdateTag': {
        const tag = state.status === 'active' ? state.tags[command.tagId] : undefined;
        if (state.status !== 'active' || !tag) throw new NotFound('Tag not found');
        const name = command.name === undefined ? tag.name : validateTagName(command.name);
        const color = command.color === undefined ? tag.color : normalizeTagColor(command.color);
        if (name === tag.name && color === tag.color) return [];
        assertNameFree(state.tags, name, tag.tagId);
        return [
          {
            type: 'TagUpdated',
            data: { orgId: state.orgId, tagId: tag.tagId, name, color, updatedAt: command.now },
          },
        ];
      }
      case 'DeleteTag': {
        const tag = state.status === 'active' ? state.tags[command.tagId] : undefined;
        if (state.status !== 'active' || !tag) throw new NotFound('Tag not found');
        return [
          { type: 'TagDeleted', data: { orgId: state.orgId, tagId: tag.tagId, deletedAt: command.now } },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'TagCreated': {
        const d = event.data;
        const tags = state.status === 'active' ? state.tags : {};
        const tag: Tag = {
          tagId: d.tagId,
          orgId: d.orgId,
          name: d.name,
          color: d.color,
          createdAt: d.createdAt,
          updatedAt: d.createdAt,
        };
        return { status: 'active', orgId: d.orgId, tags: { ...tags, [d.tagId]: tag } };
      }
      case 'TagUpdated': {
        const d = event.data;
        const tag = state.status === 'active' ? state.tags[d.tagId] : undefined;
        if (state.status !== 'active' || !tag) return state;
        return {
          ...state,
          tags: {
            ...state.tags,
            [d.tagId]: { ...tag, name: d.name, color: d.color, updatedAt: d.updatedAt },
          },
        };
      }
      case 'TagDeleted': {
        if (state.status !== 'active') return state;
        const { [event.data.tagId]: _deleted, ...rest } = state.tags;
        return { ...state, tags: rest };
      }
      default:
        return assertNever(event);
    }
  },
};
