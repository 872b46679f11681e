// The sandbox platform's public surface: the connector, its tables, faults, accounts, statistics and the
// engagement curve of its posts.
// Routes, the CLI, the registry and tests import from here.
export {
  createSandboxConnector,
  sandboxLinkedinOrganizations,
  type SandboxDeps,
} from './sandbox-connector.js';
export { sandboxMigrations, type SandboxTables } from './migrations.js';
export {
  databaseFaultSource,
  formatSandboxFaults,
  parseSandboxFaults,
  readSandboxFaultSetting,
  resetSandboxFaults,
  SandboxFaultsError,
  sandboxFaultKinds,
  setSandboxFaults,
  staticFaultSource,
  type SandboxFaultKind,
  type SandboxFaults,
  type SandboxFaultSource,
} from './faults.js';
export {
  defaultSandboxAccount,
  issueAuthorizationCode,
  SANDBOX_ACCOUNT_NAME,
  sandboxCallbackUrls,
  sandboxExternalId,
  setSandboxAccountRevoked,
} from './accounts.js';
export { sandboxPublicationsOf, sandboxStats, type SandboxStats } from './stats.js';
export {
  localSlot,
  sandboxGrowth,
  sandboxHourFactor,
  sandboxMetrics,
  sandboxWeekdayFactor,
} from './metrics.js';
