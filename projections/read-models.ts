// Kysely types of the read models as readers see them: public views named after each projection's tables.
// Projectors write the same shapes into their generation's schema; jsonb columns are read as values and written as
// JSON text (kysely's JSONColumnType).
import type { JSONColumnType } from 'kysely';
import type { ActivePostGroup } from '../domain/post-groups/post-group.js';
import type { PostGroupView, PostView } from '../domain/post-groups/views.js';
import type { SocialAccountState, SocialAccountView } from '../domain/social-accounts/social-account.js';

export interface WorkspacesTable {
  id: string;
  slug: string;
  name: string;
  status: string;
  avatar_url: string | null;
  owner_id: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface WorkspaceMembersTable {
  org_id: string;
  user_id: string;
  role: string;
  status: string;
  joined_at: string;
  updated_at: string;
}

export interface UsersTable {
  id: string;
  email: string;
  email_verified: boolean | null;
  name: string | null;
  avatar_url: string | null;
  active_org_id: string | null;
  feature_flags: string[];
  locale: string | null;
  timezone: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface TagsTable {
  id: string;
  org_id: string;
  name: string;
  color: string | null;
  created_at: string;
  updated_at: string;
}

export interface PostGroupsTable {
  id: string;
  org_id: string;
  status: string;
  title: string;
  scheduled_for: string | null;
  tag_ids: string[];
  created_at: string;
  updated_at: string;
  revision: number;
  state: JSONColumnType<ActivePostGroup>;
  body: JSONColumnType<PostGroupView>;
}

export interface PostsTable {
  id: string;
  org_id: string;
  group_id: string;
  platform: string;
  status: string;
  social_account_id: string | null;
  scheduled_for_utc: string | null;
  tag_ids: string[];
  created_at: string;
  updated_at: string;
  /** What the publishing pipeline has to do for the post (`publish`, `reconcile`, `poll`), and from when. */
  publish_action: 'publish' | 'reconcile' | 'poll' | null;
  publish_due_at: string | null;
  body: JSONColumnType<PostView>;
}

export interface SocialAccountsTable {
  id: string;
  org_id: string;
  platform: string;
  status: string;
  deleted: boolean;
  created_at: string;
  revision: number;
  state: JSONColumnType<SocialAccountState>;
  body: JSONColumnType<SocialAccountView>;
}

export interface ReadModels {
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  users: UsersTable;
  tags: TagsTable;
  post_groups: PostGroupsTable;
  posts: PostsTable;
  social_accounts: SocialAccountsTable;
}
