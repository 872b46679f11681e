// A tag as callers see it (the spec's Tag): rendered from the aggregate for write answers; the tags read model
// stores the same fields, so lists answer alike.
import type { Tag } from './tags.js';

export interface TagView {
  id: string;
  orgId: string;
  name: string;
  /** `#rgb` or `#rrggbb`, lower-case; null for none. */
  color: string | null;
  createdAt: string;
  updatedAt: string;
}

export function tagView(tag: Tag): TagView {
  return {
    id: tag.tagId,
    orgId: tag.orgId,
    name: tag.name,
    color: tag.color,
    createdAt: tag.createdAt,
    updatedAt: tag.updatedAt,
  };
}
