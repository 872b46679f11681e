import { defineConfig } from 'vitest/config';
import { classifyTestFiles } from './test/support/projects.js';

// Four projects (test/support/projects.ts decides which file is in which, from the files themselves):
//   unit           no database, no NATS, no global setup: `npx vitest run --project 'unit*'` (with unit-isolated);
//                  files share their worker's modules (`isolate: false`): each module is imported once per worker
//                  instead of once per file, which was half of the project's CPU time
//   unit-isolated  unit files that replace a module (`vi.mock`), each with modules of its own
//   integration    against PostgreSQL (and NATS when reachable), from the global setup
//   slow           whole processes, a browser, long timing checks; the same global setup
// `npm test` (`vitest run`) runs them all; `--project` picks some.
const projects = classifyTestFiles();
const servers = ['test/support/global-setup.ts'];
// A thorough property run (PROPERTY_RUNS set to `thorough` or a multiple, test/support/property-runs.ts) runs several
// times the cases of the default one: its tests get ten times the time.
const thorough = !['', 'modest'].includes((process.env.PROPERTY_RUNS ?? '').trim().toLowerCase());

export default defineConfig({
  test: {
    testTimeout: thorough ? 300_000 : 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: projects.unit, isolate: false } },
      { extends: true, test: { name: 'unit-isolated', include: projects['unit-isolated'] } },
      { extends: true, test: { name: 'integration', include: projects.integration, globalSetup: servers } },
      { extends: true, test: { name: 'slow', include: projects.slow, globalSetup: servers } },
    ],
  },
});
