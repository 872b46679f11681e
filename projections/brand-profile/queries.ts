// Queries over the preference-signal read model: a workspace's learned signals with their counts.
import type { Kysely } from 'kysely';
import { learnedSignal, type LearnedKind } from '../../domain/brand-profile/preference-signals.js';
import type { PreferenceSignal } from '../../domain/brand-profile/brand-profile.js';
import type { ReadModels } from '../read-models.js';
import type { BrandSignalTables } from './preference-signals-projection.js';

/** Every signal learned in the workspace, most seen first (then most recent, then by words). */
export async function learnedSignals(db: Kysely<ReadModels>, orgId: string): Promise<PreferenceSignal[]> {
  const rows = await (db.withTables<BrandSignalTables>() as unknown as Kysely<BrandSignalTables>)
    .selectFrom('brand_signal_occurrences')
    .select((eb) => [
      'kind',
      'signal',
      eb.fn.countAll<string>().as('occurrences'),
      eb.fn.max('seen_at').as('last_seen_at'),
    ])
    .where('org_id', '=', orgId)
    .groupBy(['kind', 'signal'])
    .execute();
  return rows
    .map((row) =>
      learnedSignal(orgId, {
        kind: row.kind as LearnedKind,
        signal: row.signal,
        occurrences: Number(row.occurrences),
        lastSeenAt: new Date(row.last_seen_at).toISOString(),
      }),
    )
    .sort(
      (a, b) =>
        (b.occurrences ?? 0) - (a.occurrences ?? 0) ||
        b.lastSeenAt.localeCompare(a.lastSeenAt) ||
        a.signal.localeCompare(b.signal),
    );
}
