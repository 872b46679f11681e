// The context library slice (issue 31, part 1): Notion sources (event-sourced, `contextSource-<sourceId>`) and the
// documents copied from their pages (`contextDocument-<documentId>`), their read model (and the enabled public
// documents every post writer is grounded in, projections/context/queries.ts `publicContextDocuments`), the
// sealed tokens and pending authorizations (infra/notion/stores.ts), Notion's OAuth callback and, in the
// embedded default, the sandbox Notion's consent page.
import { contextStoreMigrations } from '../../infra/notion/stores.js';
import { notionSettings } from '../../infra/notion/settings.js';
import { contextProjection } from '../../projections/context/context-projection.js';
import { defineSlice, migrationsOf } from '../shared/slice.js';
import { contextOperations } from './operations.js';
import { contextRoutes } from './routes.js';
import { contextDepsOf } from './services.js';

export const contextSlice = defineSlice({
  name: 'context',
  migrations: migrationsOf(contextStoreMigrations),
  projections: [contextProjection],
  settings: [notionSettings],
  operations: [contextOperations],
  routes: (ctx) => [
    contextRoutes(contextDepsOf(ctx), { ...(ctx.services.now ? { now: ctx.services.now } : {}) }),
  ],
});
