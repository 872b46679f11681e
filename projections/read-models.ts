// Kysely types of the read models as readers see them: public views named after each projection's tables.
// Projectors write the same shapes into their generation's schema.

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

export interface ReadModels {
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  users: UsersTable;
  tags: TagsTable;
}
