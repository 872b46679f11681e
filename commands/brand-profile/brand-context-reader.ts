// The 'brand context' service (domain/ai/brand-context.ts): a workspace's public brand context for prompts, built
// by brandContextOf (the one place private and restricted knowledge and guardrails are left out), and the
// after-the-fact check of generated text against the guardrails and private knowledge.
import type { Kysely } from 'kysely';
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import { brandContextOf, checkOutput } from '../../domain/brand-profile/brand-context.js';
import { mergeSignals } from '../../domain/brand-profile/preference-signals.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { learnedSignals } from '../../projections/brand-profile/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { BrandKitReader } from '../brand/brand-kit-port.js';
import { loadBrandProfile } from './brand-profile-commands.js';

export function createBrandContextReader(deps: {
  commands: Pick<CommandDeps, 'eventStore'>;
  readModels: Kysely<ReadModels>;
  kit: Pick<BrandKitReader, 'get'>;
}): BrandContextReader {
  return {
    async forOrg(orgId) {
      const { state } = await loadBrandProfile(deps.commands, orgId);
      if (!state.exists) return null;
      const [kit, learned] = await Promise.all([deps.kit.get(orgId), learnedSignals(deps.readModels, orgId)]);
      return brandContextOf({ ...state, allSignals: mergeSignals(state.preferenceSignals, learned) }, kit);
    },
    async checkOutput(orgId, text) {
      const { state } = await loadBrandProfile(deps.commands, orgId);
      return checkOutput(text, state);
    },
  };
}
