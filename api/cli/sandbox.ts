// `sandbox faults|revoke|restore|stats`: the operator's controls of the simulated platforms, talking to the
// database directly so a change reaches every running process (fault settings within a second).
import type { Kysely } from 'kysely';
import { platforms, type Platform } from '../../domain/shared/platforms.js';
import {
  formatSandboxFaults,
  readSandboxFaultSetting,
  resetSandboxFaults,
  SandboxFaultsError,
  sandboxStats,
  setSandboxAccountRevoked,
  setSandboxFaults,
  type SandboxTables,
} from '../../infra/connectors/sandbox/index.js';
import { SANDBOX_USAGE } from './usage.js';
export { SANDBOX_USAGE } from './usage.js';

export interface SandboxCommandDeps {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  /** SANDBOX_FAULTS as configured, shown beside the run-time setting. */
  configuredFaults: string | undefined;
  out: (line: string) => void;
}

const isPlatform = (value: string | undefined): value is Platform =>
  value !== undefined && (platforms as readonly string[]).includes(value);

async function showFaults(deps: SandboxCommandDeps): Promise<void> {
  const setting = await readSandboxFaultSetting(deps.db as Kysely<SandboxTables>, deps.configuredFaults);
  deps.out(`faults: ${formatSandboxFaults(setting.effective)}`);
  if (setting.override !== null)
    deps.out(
      `source: run-time setting${setting.configured ? ` (SANDBOX_FAULTS=${setting.configured} is overridden)` : ''}`,
    );
  else deps.out(setting.configured ? 'source: SANDBOX_FAULTS' : 'source: none set');
}

export async function sandboxCommand(args: string[], deps: SandboxCommandDeps): Promise<number> {
  const [sub, ...rest] = args;
  const db = deps.db as Kysely<SandboxTables>;
  if (sub === 'faults') {
    const [action, ...values] = rest;
    if (action === undefined) {
      await showFaults(deps);
      return 0;
    }
    if (action === 'set' && values.length > 0) {
      try {
        await setSandboxFaults(db, values.join(','));
      } catch (error) {
        if (error instanceof SandboxFaultsError) {
          deps.out(error.message);
          return 2;
        }
        throw error;
      }
      await showFaults(deps);
      return 0;
    }
    if (action === 'clear' && values.length === 0) {
      await setSandboxFaults(db, 'none');
      await showFaults(deps);
      return 0;
    }
    if (action === 'reset' && values.length === 0) {
      await resetSandboxFaults(db);
      await showFaults(deps);
      return 0;
    }
  }
  if ((sub === 'revoke' || sub === 'restore') && rest.length === 2) {
    const [platform, externalId] = rest as [string, string];
    if (!isPlatform(platform)) {
      deps.out(`"${platform}" is not a platform (${platforms.join(', ')})`);
      return 2;
    }
    await setSandboxAccountRevoked(db, platform, externalId, sub === 'revoke');
    deps.out(
      sub === 'revoke'
        ? `${platform} account ${externalId}: access revoked (refresh and platform calls now fail with auth)`
        : `${platform} account ${externalId}: access restored`,
    );
    return 0;
  }
  if (sub === 'stats' && rest.length === 0) {
    const stats = await sandboxStats(db);
    if (stats.platforms.length === 0) deps.out('no publications');
    else {
      const header = ['platform', 'total', 'published', 'pending', 'deleted'];
      const cells = stats.platforms.map((p) => [
        p.platform,
        String(p.total),
        String(p.published),
        String(p.pending),
        String(p.deleted),
      ]);
      const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
      for (const row of [header, ...cells])
        deps.out(
          row
            .map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
            .join('  ')
            .trimEnd(),
        );
    }
    if (stats.duplicates.length === 0) deps.out('posts published more than once: none');
    else {
      deps.out(`posts published more than once: ${stats.duplicates.length}`);
      for (const d of stats.duplicates)
        deps.out(`  ${d.platform} ${d.postId}: ${d.publications} publications`);
    }
    return 0;
  }
  deps.out(`usage: ${SANDBOX_USAGE}`);
  return 2;
}
