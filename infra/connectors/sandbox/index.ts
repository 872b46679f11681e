// The sandbox platform's public surface: the connector, its tables, faults, accounts, statistics, the
// engagement curve of its posts and its accounts' audience.
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
  SANDBOX_AUDIENCE_EPOCH,
  sandboxAudience,
  sandboxHourFactor,
  sandboxMetrics,
  sandboxWeekdayFactor,
} from './metrics.js';
