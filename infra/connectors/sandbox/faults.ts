// Sandbox faults: which share of publish calls fail, get rejected, lose their answer or stay pending.
// Read from SANDBOX_FAULTS, overridden at run time by a settings row that every process re-reads within a second.
import type { Kysely } from 'kysely';
import { platforms, type Platform } from '../../../domain/shared/platforms.js';
import type { SandboxTables } from './migrations.js';

/**
 * - `fail`: retryable error, nothing published;
 * - `reject`: permanent error, nothing published;
 * - `auth`: the token is refused;
 * - `timeout`: the answer is lost; the publication is recorded or not (½ each), then `unknown_outcome`;
 * - `pending`: recorded as pending, published `pendingMs` later.
 */
export const sandboxFaultKinds = ['auth', 'reject', 'fail', 'timeout', 'pending'] as const;
export type SandboxFaultKind = (typeof sandboxFaultKinds)[number];
export type FaultShares = Partial<Record<SandboxFaultKind, number>>;

export interface SandboxFaults {
  /** Shares for every platform. */
  all: FaultShares;
  /** Per-platform shares (`x:fail=0.5`), replacing the general share of the same fault. */
  platforms: Partial<Record<Platform, FaultShares>>;
}

export const noFaults: SandboxFaults = { all: {}, platforms: {} };

export class SandboxFaultsError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Invalid sandbox faults: ${problems.join('; ')} (expected e.g. "fail=0.2,timeout=0.05,pending=0.3,x:reject=0.1"; faults: ${sandboxFaultKinds.join(', ')}; shares between 0 and 1)`,
    );
    this.name = 'SandboxFaultsError';
  }
}

const isKind = (value: string): value is SandboxFaultKind =>
  (sandboxFaultKinds as readonly string[]).includes(value);
const isPlatform = (value: string): value is Platform => (platforms as readonly string[]).includes(value);

/** Parses `fail=0.2,timeout=0.05,x:pending=0.5`; empty or `none` is no faults. Throws SandboxFaultsError. */
export function parseSandboxFaults(text: string | null | undefined): SandboxFaults {
  const trimmed = (text ?? '').trim();
  if (trimmed === '' || trimmed === 'none') return { all: {}, platforms: {} };
  const faults: SandboxFaults = { all: {}, platforms: {} };
  const problems: string[] = [];
  for (const raw of trimmed.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = /^(?:([a-z]+):)?([a-z_]+)=([^=]*)$/.exec(entry);
    if (!match) {
      problems.push(`"${entry}" is not [platform:]fault=share`);
      continue;
    }
    const [, platform, kind = '', shareText = ''] = match;
    if (platform !== undefined && !isPlatform(platform)) {
      problems.push(`"${platform}" is not a platform (${platforms.join(', ')})`);
      continue;
    }
    if (!isKind(kind)) {
      problems.push(`"${kind}" is not a fault (${sandboxFaultKinds.join(', ')})`);
      continue;
    }
    const share = Number(shareText);
    if (shareText.trim() === '' || !Number.isFinite(share) || share < 0 || share > 1) {
      problems.push(`${entry}: the share must be a number between 0 and 1`);
      continue;
    }
    const target = platform === undefined ? faults.all : (faults.platforms[platform] ??= {});
    if (target[kind] !== undefined) {
      problems.push(`${platform ? `${platform}:` : ''}${kind} is given twice`);
      continue;
    }
    target[kind] = share;
  }
  if (problems.length === 0) {
    for (const platform of [undefined, ...platforms]) {
      const total = sandboxFaultKinds.reduce(
        (sum, kind) => sum + (sharesFor(faults, platform)[kind] ?? 0),
        0,
      );
      if (total > 1 + 1e-9)
        problems.push(
          `the shares${platform ? ` for ${platform}` : ''} add up to ${round(total)}, more than 1`,
        );
    }
  }
  if (problems.length > 0) throw new SandboxFaultsError(problems);
  return faults;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

function sharesFor(faults: SandboxFaults, platform: Platform | undefined): FaultShares {
  return platform === undefined ? faults.all : { ...faults.all, ...faults.platforms[platform] };
}

/** The shares that apply to one platform. */
export function faultSharesFor(faults: SandboxFaults, platform: Platform): FaultShares {
  return sharesFor(faults, platform);
}

/** The canonical text of a fault setting (what `parseSandboxFaults` reads back to the same value). */
export function formatSandboxFaults(faults: SandboxFaults): string {
  const entries = (prefix: string, shares: FaultShares) =>
    sandboxFaultKinds.flatMap((kind) =>
      shares[kind] === undefined ? [] : [`${prefix}${kind}=${round(shares[kind])}`],
    );
  const parts = [
    ...entries('', faults.all),
    ...platforms.flatMap((p) => (faults.platforms[p] ? entries(`${p}:`, faults.platforms[p]) : [])),
  ];
  return parts.length === 0 ? 'none' : parts.join(',');
}

/** Which fault a draw in [0, 1) lands on: shares are laid end to end in a fixed order; null is no fault. */
export function pickFault(shares: FaultShares, draw: number): SandboxFaultKind | null {
  let edge = 0;
  for (const kind of sandboxFaultKinds) {
    edge += shares[kind] ?? 0;
    if (draw < edge) return kind;
  }
  return null;
}

/** Where connectors learn the current faults. */
export interface SandboxFaultSource {
  current(): Promise<SandboxFaults>;
}

export function staticFaultSource(faults: SandboxFaults | string): SandboxFaultSource {
  const value = typeof faults === 'string' ? parseSandboxFaults(faults) : faults;
  return { current: async () => value };
}

const FAULTS_KEY = 'faults';

export interface FaultSettingView {
  /** The run-time override (`none` when faults were cleared), or null when SANDBOX_FAULTS applies. */
  override: string | null;
  /** SANDBOX_FAULTS as configured. */
  configured: string | null;
  effective: SandboxFaults;
}

/** The fault setting: the override row when there is one, else SANDBOX_FAULTS. */
export async function readSandboxFaultSetting(
  db: Kysely<SandboxTables>,
  configured: string | null | undefined,
): Promise<FaultSettingView> {
  const row = await db
    .selectFrom('sandbox_settings')
    .select('value')
    .where('key', '=', FAULTS_KEY)
    .executeTakeFirst();
  return {
    override: row ? formatSandboxFaults(parseSandboxFaults(row.value)) : null,
    configured: configured ?? null,
    effective: parseSandboxFaults(row ? row.value : configured),
  };
}

/** Overrides SANDBOX_FAULTS for every process; throws SandboxFaultsError (and changes nothing) on bad text. */
export async function setSandboxFaults(db: Kysely<SandboxTables>, text: string): Promise<SandboxFaults> {
  const faults = parseSandboxFaults(text);
  const value = formatSandboxFaults(faults);
  await db
    .insertInto('sandbox_settings')
    .values({ key: FAULTS_KEY, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: new Date().toISOString() }))
    .execute();
  return faults;
}

/** Drops the run-time override, so SANDBOX_FAULTS applies again. */
export async function resetSandboxFaults(db: Kysely<SandboxTables>): Promise<void> {
  await db.deleteFrom('sandbox_settings').where('key', '=', FAULTS_KEY).execute();
}

export interface DatabaseFaultSourceOptions {
  db: Kysely<SandboxTables>;
  /** SANDBOX_FAULTS; used while no override row exists. Parsed at once, so a bad value stops the start. */
  configured?: string | null;
  /** How long one read is reused; keep it under a second so operators see a change take effect quickly. */
  cacheMs?: number;
  now?: () => number;
}

/** Faults from the settings row, falling back to SANDBOX_FAULTS; cached briefly. */
export function databaseFaultSource(options: DatabaseFaultSourceOptions): SandboxFaultSource {
  const configured = parseSandboxFaults(options.configured);
  const cacheMs = options.cacheMs ?? 500;
  const now = options.now ?? Date.now;
  let cached: { at: number; value: Promise<SandboxFaults> } | null = null;
  const read = async (): Promise<SandboxFaults> => {
    const row = await options.db
      .selectFrom('sandbox_settings')
      .select('value')
      .where('key', '=', FAULTS_KEY)
      .executeTakeFirst();
    if (!row) return configured;
    try {
      return parseSandboxFaults(row.value);
    } catch {
      // Rows are validated on write; an unreadable one (edited by hand) means no faults rather than a crash.
      return noFaults;
    }
  };
  return {
    current() {
      const at = now();
      if (cached && at - cached.at < cacheMs) return cached.value;
      const value = read();
      cached = { at, value };
      value.catch(() => {
        if (cached?.value === value) cached = null;
      });
      return value;
    },
  };
}
