// The post groups slice: post groups and their posts (api/posts), approvals, schedules and the slot finder's
// claims (projections/scheduler).
import { postGroupsProjection } from '../../projections/post-groups/post-groups-projection.js';
import { slotClaimMigrations } from '../../projections/scheduler/migrations.js';
import { postRoutes } from '../posts/routes.js';
import { migrationsOf, type Slice } from '../shared/slice.js';
import { postGroupTools } from './tools.js';
import { postGroupRoutes } from './routes.js';

export const postGroupsSlice: Slice = {
  name: 'post-groups',
  migrations: migrationsOf(slotClaimMigrations),
  projections: [postGroupsProjection],
  routes: ({ services }) => [postGroupRoutes(services), postRoutes(services)],
  tools: postGroupTools,
};
