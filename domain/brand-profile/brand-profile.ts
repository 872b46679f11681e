// The workspace's brand profile (spec part 2, "Brand profile"): voice, business outline, knowledge, guardrails and
// preferences, one stream per workspace (`brandProfile-<orgId>`). A person's edit records the fields it changed
// (and, with `confirmBrandContext`, a confirmation); an inference from a website records what it found but never
// overwrites a field a person set, nor a knowledge item that is not an unconfirmed inference, and leaves the
// profile unconfirmed when it changed anything. The brand kit's facts are not part of this state.
import { assertNever, type Decider } from '../shared/decider.js';
import { InvalidFields, type ErrorDetail } from '../shared/errors.js';
import {
  brandProfileEventCodec,
  type BrandProfileChanges,
  type BrandProfileEvent,
  type Guardrail,
  type KnowledgeItem,
  type PreferenceSignal,
} from './event-codec.js';

export type {
  BrandProfileChanges,
  BrandProfileEvent,
  Guardrail,
  KnowledgeItem,
  PreferenceSignal,
} from './event-codec.js';
export {
  brandTypes,
  confidences,
  disclosures,
  durabilities,
  guardrailDisclosures,
  knowledgeKinds,
  provenanceOrigins,
  signalKinds,
} from './event-codec.js';

export const brandProfileCategory = 'brandProfile';

/** The version of the profile's shape, answered as `meta.schemaVersion`. */
export const brandProfileSchemaVersion = 1;

export type BrandType = 'personal' | 'business' | 'unknown';
export type Disclosure = 'public' | 'private' | 'restricted';

export interface BrandVoice {
  tone: string;
  personalityTraits: string[];
  writingGuidelines: string[];
  bannedPhrases: string[];
}

export interface BusinessOutline {
  overview: string;
  productsOrServices: string[];
  targetAudience: string[];
  valueProposition: string;
  differentiators: string[];
}

/** The profile's own fields (what an edit or an inference may change). */
export interface BrandProfileFields {
  websiteUrl: string | null;
  tagline: string | null;
  mission: string | null;
  voice: BrandVoice;
  businessOutline: BusinessOutline;
  brandType: BrandType;
  identity: string | null;
  expertise: string[];
  goals: string[];
  topics: string[];
  opinions: string[];
  guardrails: Guardrail[];
  knowledgeItems: KnowledgeItem[];
  /** The profile's own signals (explicit ones); learned ones come from the preference-signal read model. */
  preferenceSignals: PreferenceSignal[];
  profileDisclosure: Disclosure;
}

export type ProfileField = keyof BrandProfileFields;

export const profileFields = [
  'websiteUrl',
  'tagline',
  'mission',
  'voice',
  'businessOutline',
  'brandType',
  'identity',
  'expertise',
  'goals',
  'topics',
  'opinions',
  'guardrails',
  'knowledgeItems',
  'preferenceSignals',
  'profileDisclosure',
] as const satisfies readonly ProfileField[];

export interface BrandProfileState extends BrandProfileFields {
  /** False until the first event: GET answers the empty profile. */
  exists: boolean;
  confirmedAt: string | null;
  lastInferredAt: string | null;
  lastEditedAt: string | null;
  /** Fields a person set (an inference leaves them alone). */
  editedFields: ProfileField[];
}

export const emptyBrandProfile: BrandProfileState = {
  websiteUrl: null,
  tagline: null,
  mission: null,
  voice: { tone: '', personalityTraits: [], writingGuidelines: [], bannedPhrases: [] },
  businessOutline: {
    overview: '',
    productsOrServices: [],
    targetAudience: [],
    valueProposition: '',
    differentiators: [],
  },
  brandType: 'unknown',
  identity: null,
  expertise: [],
  goals: [],
  topics: [],
  opinions: [],
  guardrails: [],
  knowledgeItems: [],
  preferenceSignals: [],
  profileDisclosure: 'public',
  exists: false,
  confirmedAt: null,
  lastInferredAt: null,
  lastEditedAt: null,
  editedFields: [],
};

export type BrandProfileCommand =
  | {
      type: 'EditBrandProfile';
      orgId: string;
      /** Normalised by the use case (trimmed, ids given to new items and guardrails). */
      changes: BrandProfileChanges;
      confirm: boolean;
      by: string;
      now: string;
    }
  | {
      type: 'InferBrandProfile';
      orgId: string;
      /** What the inference found; fields a person set are left out by the decision. */
      inferred: Omit<BrandProfileChanges, 'knowledgeItems'> & { knowledgeItems: KnowledgeItem[] };
      websiteUrl: string;
      source: 'ai' | 'heuristic';
      providerModel: string;
      runId: string;
      pages: string[];
      by: string;
      now: string;
    };

// Limits of what a profile holds: enough for any brand, small enough for a prompt and a stream.
export const profileLimits = {
  shortText: 200,
  text: 1000,
  longText: 4000,
  listItem: 500,
  listEntries: 50,
  knowledgeItems: 500,
  knowledgeText: 2000,
  guardrails: 100,
  signals: 100,
  id: 100,
} as const;

const httpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

/** Every problem of an edit's values, named in the profile's terms (`voice.tone`, `knowledgeItems.2.text`). */
export function problemsOf(changes: BrandProfileChanges): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const text = (path: string, value: string | null | undefined, max: number, required = false) => {
    if (value === undefined || value === null) return;
    if (value.length > max) problems.push({ path, message: `at most ${max} characters` });
    else if (required && value.trim() === '') problems.push({ path, message: 'must not be empty' });
  };
  const list = (path: string, values: string[] | undefined) => {
    if (values === undefined) return;
    if (values.length > profileLimits.listEntries)
      problems.push({ path, message: `at most ${profileLimits.listEntries} entries` });
    values.forEach((v, i) => text(`${path}.${i}`, v, profileLimits.listItem, true));
  };
  const ids = (path: string, items: { id: string }[]) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (item.id.trim() === '' || item.id.length > profileLimits.id)
        problems.push({ path: `${path}.${i}.id`, message: `an id of 1 to ${profileLimits.id} characters` });
      else if (seen.has(item.id))
        problems.push({ path: `${path}.${i}.id`, message: `"${item.id}" is used twice` });
      seen.add(item.id);
    });
  };

  if (changes.websiteUrl != null) {
    if (changes.websiteUrl.length > 2048 || !httpUrl(changes.websiteUrl))
      problems.push({ path: 'websiteUrl', message: 'an http(s) address, e.g. https://example.com' });
  }
  text('tagline', changes.tagline, profileLimits.shortText);
  text('mission', changes.mission, profileLimits.text);
  text('identity', changes.identity, profileLimits.text);
  if (changes.voice) {
    text('voice.tone', changes.voice.tone, profileLimits.shortText);
    list('voice.personalityTraits', changes.voice.personalityTraits);
    list('voice.writingGuidelines', changes.voice.writingGuidelines);
    list('voice.bannedPhrases', changes.voice.bannedPhrases);
  }
  if (changes.businessOutline) {
    const o = changes.businessOutline;
    text('businessOutline.overview', o.overview, profileLimits.longText);
    text('businessOutline.valueProposition', o.valueProposition, profileLimits.text);
    list('businessOutline.productsOrServices', o.productsOrServices);
    list('businessOutline.targetAudience', o.targetAudience);
    list('businessOutline.differentiators', o.differentiators);
  }
  for (const key of ['expertise', 'goals', 'topics', 'opinions'] as const) list(key, changes[key]);
  if (changes.guardrails) {
    if (changes.guardrails.length > profileLimits.guardrails)
      problems.push({ path: 'guardrails', message: `at most ${profileLimits.guardrails} guardrails` });
    ids('guardrails', changes.guardrails);
    changes.guardrails.forEach((g, i) => text(`guardrails.${i}.text`, g.text, profileLimits.text, true));
  }
  if (changes.knowledgeItems) {
    if (changes.knowledgeItems.length > profileLimits.knowledgeItems)
      problems.push({ path: 'knowledgeItems', message: `at most ${profileLimits.knowledgeItems} items` });
    ids('knowledgeItems', changes.knowledgeItems);
    changes.knowledgeItems.forEach((k, i) => {
      text(`knowledgeItems.${i}.text`, k.text, profileLimits.knowledgeText, true);
      const source = k.provenance.sourceUrl;
      if (source != null && (source.length > 2048 || !httpUrl(source)))
        problems.push({ path: `knowledgeItems.${i}.provenance.sourceUrl`, message: 'an http(s) address' });
    });
  }
  if (changes.preferenceSignals) {
    if (changes.preferenceSignals.length > profileLimits.signals)
      problems.push({ path: 'preferenceSignals', message: `at most ${profileLimits.signals} signals` });
    ids('preferenceSignals', changes.preferenceSignals);
    changes.preferenceSignals.forEach((s, i) => {
      text(`preferenceSignals.${i}.signal`, s.signal, profileLimits.shortText * 2, true);
      if (Number.isNaN(Date.parse(s.lastSeenAt)))
        problems.push({ path: `preferenceSignals.${i}.lastSeenAt`, message: 'a date-time (ISO 8601)' });
    });
  }
  return problems;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** `changes` reduced to the fields whose value differs from the profile's, and their names in the profile's order. */
export function effectiveChanges(
  state: BrandProfileFields,
  changes: BrandProfileChanges,
): { changes: BrandProfileChanges; changed: ProfileField[] } {
  const out: Record<string, unknown> = {};
  const changed: ProfileField[] = [];
  for (const key of profileFields) {
    const value = changes[key];
    if (value !== undefined && !same(value, state[key])) {
      out[key] = value;
      changed.push(key);
    }
  }
  return { changes: out, changed };
}

function applyChanges<S extends BrandProfileFields>(state: S, changes: BrandProfileChanges): S {
  const next = { ...state } as Record<string, unknown>;
  for (const key of profileFields) if (changes[key] !== undefined) next[key] = changes[key];
  return next as S;
}

function decideEdit(
  command: Extract<BrandProfileCommand, { type: 'EditBrandProfile' }>,
  state: BrandProfileState,
): BrandProfileEvent[] {
  const problems = problemsOf(command.changes);
  if (problems.length > 0) throw new InvalidFields('Invalid brand profile', problems);
  const { changes, changed } = effectiveChanges(state, command.changes);
  const events: BrandProfileEvent[] = [];
  if (changed.length > 0)
    events.push({
      type: 'BrandProfileEdited',
      data: { orgId: command.orgId, changes, by: command.by, at: command.now },
    });
  // A confirmed profile stays confirmed through its person's own edits; confirming it again changes nothing.
  if (command.confirm && state.confirmedAt === null)
    events.push({
      type: 'BrandProfileConfirmed',
      data: { orgId: command.orgId, by: command.by, at: command.now },
    });
  return events;
}

function decideInfer(
  command: Extract<BrandProfileCommand, { type: 'InferBrandProfile' }>,
  state: BrandProfileState,
): BrandProfileEvent[] {
  const { knowledgeItems: inferredItems, ...fields } = command.inferred;
  const proposed: BrandProfileChanges = {};
  for (const key of profileFields) {
    if (key === 'knowledgeItems' || state.editedFields.includes(key)) continue;
    const value = fields[key];
    if (value !== undefined) (proposed as Record<string, unknown>)[key] = value;
  }
  // Kept: whatever a person wrote, imported or confirmed; replaced: the last inference's unconfirmed items.
  const kept = state.knowledgeItems.filter((k) => k.provenance.origin !== 'inferred' || k.confirmed === true);
  const keptTexts = new Set(kept.map((k) => k.text.toLowerCase()));
  proposed.knowledgeItems = [...kept, ...inferredItems.filter((k) => !keptTexts.has(k.text.toLowerCase()))];
  const problems = problemsOf(proposed);
  if (problems.length > 0) throw new InvalidFields('The inferred brand profile is invalid', problems);
  const { changes } = effectiveChanges(state, proposed);
  return [
    {
      type: 'BrandProfileInferred',
      data: {
        orgId: command.orgId,
        changes,
        websiteUrl: command.websiteUrl,
        source: command.source,
        providerModel: command.providerModel,
        runId: command.runId,
        pages: command.pages,
        by: command.by,
        at: command.now,
      },
    },
  ];
}

export const brandProfileDecider: Decider<BrandProfileState, BrandProfileCommand, BrandProfileEvent> = {
  initialState: emptyBrandProfile,
  codec: brandProfileEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'EditBrandProfile':
        return decideEdit(command, state);
      case 'InferBrandProfile':
        return decideInfer(command, state);
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'BrandProfileEdited': {
        const edited = profileFields.filter(
          (key) => event.data.changes[key] !== undefined || state.editedFields.includes(key),
        );
        return {
          ...applyChanges(state, event.data.changes),
          exists: true,
          lastEditedAt: event.data.at,
          editedFields: edited,
        };
      }
      case 'BrandProfileConfirmed':
        return { ...state, exists: true, confirmedAt: event.data.at };
      case 'BrandProfileInferred': {
        const changedSomething = Object.keys(event.data.changes).length > 0;
        return {
          ...applyChanges(state, event.data.changes),
          exists: true,
          lastInferredAt: event.data.at,
          // What a person confirmed is no longer what the profile says: they should look again.
          confirmedAt: changedSomething ? null : state.confirmedAt,
        };
      }
      default:
        return assertNever(event);
    }
  },
};
