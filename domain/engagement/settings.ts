// The engagement settings aggregate (issue 30, part 1): what the reply inbox listens for, one stream per workspace
// (`engagementSettings-<orgId>`). A save names the fields it changes (lists replace); the decider normalises and
// checks every field (handles without `@`, subreddits without `r/`, de-duplicated lists, the limits below) and
// records the whole settings when anything changed. A workspace that never saved any has the defaults.
import { canonicalJson } from '../shared/canonical-json.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { InvalidFields, type ErrorDetail } from '../shared/errors.js';
import { deterministicUuid } from '../shared/ids.js';
import {
  engagementSettingsEventCodec,
  feedSources,
  type EngagementFeed,
  type EngagementSettings,
  type EngagementSettingsEvent,
  type FeedSource,
} from './event-codec.js';
import { normalizeSubreddit, normalizeXCommunity, normalizeXHandle } from './handles.js';

export type { EngagementFeed, EngagementSettings, EngagementSettingsEvent } from './event-codec.js';

export const engagementSettingsCategory = 'engagementSettings';

export const engagementLimits = {
  /** Entries of each list (keywords, handles, subreddits, exclude terms, a feed's keywords and handles). */
  listItems: 50,
  /** Characters of a keyword or an exclude term. */
  termLength: 100,
  feeds: 20,
  /** X communities read (each costs a lookup and a search per refresh). */
  communities: 10,
  feedNameLength: 60,
  /** A feed id a client chooses: letters, digits, `_` and `-`. */
  feedIdPattern: /^[A-Za-z0-9_-]{1,64}$/,
  /** An X list id: its digits. */
  listIdPattern: /^[0-9]{1,19}$/,
} as const;

export const defaultEngagementSettings: EngagementSettings = {
  watchHandles: [],
  keywords: [],
  autoRefresh: false,
  redditKeywords: [],
  subreddits: [],
  redditExcludeTerms: [],
  feeds: [],
  communities: [],
};

/** A feed as a save sends it: an id keeps a feed (or names a new one); without, a feed keeps its name's id. */
export interface FeedInput {
  id?: string | undefined;
  name: string;
  source: FeedSource;
  keywords?: string[] | undefined;
  listId?: string | null | undefined;
  handles?: string[] | undefined;
  enabled?: boolean | undefined;
}

export interface EngagementSettingsChanges {
  watchHandles?: string[] | undefined;
  keywords?: string[] | undefined;
  autoRefresh?: boolean | undefined;
  redditKeywords?: string[] | undefined;
  subreddits?: string[] | undefined;
  redditExcludeTerms?: string[] | undefined;
  feeds?: FeedInput[] | undefined;
  communities?: string[] | undefined;
}

export type EngagementSettingsCommand = {
  type: 'UpdateEngagementSettings';
  orgId: string;
  changes: EngagementSettingsChanges;
  /** Seeds the ids of new feeds, so a retried request decides the same ids. */
  idSeed: string;
  by: string | null;
  now: string;
};

export interface EngagementSettingsState {
  settings: EngagementSettings;
  updatedAt: string | null;
  updatedBy: string | null;
}

// ---- Normalising and checking ----

type Problems = ErrorDetail[];

/**
 * A list normalised entry by entry (`normalize` answers null for an entry it refuses, named `<path>.<i>` with
 * `rule`), de-duplicated case-insensitively with the first spelling kept; more than the limit refuses the list.
 */
function list(
  values: readonly string[],
  path: string,
  problems: Problems,
  normalize: (value: string) => string | null,
  rule: string,
): string[] {
  if (values.length > engagementLimits.listItems) {
    problems.push({ path, message: `at most ${engagementLimits.listItems} entries` });
    return [];
  }
  const out: string[] = [];
  const seen = new Set<string>();
  values.forEach((value, i) => {
    const entry = normalize(value);
    if (entry === null) problems.push({ path: `${path}.${i}`, message: rule });
    else if (!seen.has(entry.toLowerCase())) {
      seen.add(entry.toLowerCase());
      out.push(entry);
    }
  });
  return out;
}

/** A search term: trimmed, inner spaces collapsed, 1 to 100 characters. */
function term(value: string): string | null {
  const text = value.trim().replace(/\s+/g, ' ');
  return text.length === 0 || text.length > engagementLimits.termLength ? null : text;
}

const termRule = `1 to ${engagementLimits.termLength} characters`;
const terms = (values: readonly string[], path: string, problems: Problems) =>
  list(values, path, problems, term, termRule);
const handleRule = 'an X handle: 1 to 15 letters, digits or underscores, with or without @';
const subredditRule = 'a subreddit: 2 to 21 letters, digits or underscores, with or without r/';
const communityRule =
  "an X community: its id (digits) or its page's address, https://x.com/i/communities/<id>";
const handles = (values: readonly string[], path: string, problems: Problems) =>
  list(values, path, problems, normalizeXHandle, handleRule);

function feedsOf(
  inputs: readonly FeedInput[],
  current: readonly EngagementFeed[],
  idSeed: string,
  problems: Problems,
): EngagementFeed[] {
  if (inputs.length > engagementLimits.feeds) {
    problems.push({ path: 'feeds', message: `at most ${engagementLimits.feeds} feeds` });
    return [];
  }
  const idOfName = new Map(current.map((f) => [f.name.toLowerCase(), f.id]));
  const ids = new Set<string>();
  const namesSeen = new Set<string>();
  return inputs.map((input, i) => {
    const at = `feeds.${i}`;
    const name = input.name.trim().replace(/\s+/g, ' ');
    if (name.length === 0 || name.length > engagementLimits.feedNameLength)
      problems.push({ path: `${at}.name`, message: `1 to ${engagementLimits.feedNameLength} characters` });
    else if (namesSeen.has(name.toLowerCase()))
      problems.push({ path: `${at}.name`, message: 'feed names are unique (case-insensitive)' });
    namesSeen.add(name.toLowerCase());
    if (!(feedSources as readonly string[]).includes(input.source))
      problems.push({ path: `${at}.source`, message: `one of ${feedSources.join(', ')}` });

    let id = input.id?.trim();
    if (id !== undefined && !engagementLimits.feedIdPattern.test(id)) {
      problems.push({ path: `${at}.id`, message: '1 to 64 letters, digits, _ or -' });
      id = undefined;
    }
    id ??= idOfName.get(name.toLowerCase()) ?? deterministicUuid(idSeed, 'engagement-feed', String(i));
    if (ids.has(id)) problems.push({ path: `${at}.id`, message: 'feed ids are unique' });
    ids.add(id);

    const keywords = terms(input.keywords ?? [], `${at}.keywords`, problems);
    const people = handles(input.handles ?? [], `${at}.handles`, problems);
    const listId = input.listId?.trim() || null;
    if (input.source === 'keywords' && keywords.length === 0)
      problems.push({ path: `${at}.keywords`, message: 'a keywords feed needs at least one keyword' });
    if (input.source === 'list') {
      if (listId === null)
        problems.push({ path: `${at}.listId`, message: "a list feed needs the X list's id" });
      else if (!engagementLimits.listIdPattern.test(listId))
        problems.push({ path: `${at}.listId`, message: "an X list id: the list's digits" });
    } else if (listId !== null)
      problems.push({ path: `${at}.listId`, message: 'only a list feed has a listId' });
    if (input.source === 'people' && people.length === 0 && (input.handles ?? []).length === 0)
      problems.push({ path: `${at}.handles`, message: 'a people feed needs at least one X handle' });
    if (input.source !== 'people' && people.length > 0)
      problems.push({ path: `${at}.handles`, message: 'only a people feed has handles' });

    return {
      id,
      name,
      source: input.source,
      keywords,
      listId,
      handles: people,
      enabled: input.enabled ?? true,
    };
  });
}

/** The settings after `changes`, normalised; every refused field named at once. */
export function applySettingsChanges(
  current: EngagementSettings,
  changes: EngagementSettingsChanges,
  idSeed: string,
): EngagementSettings {
  const problems: Problems = [];
  const next: EngagementSettings = {
    watchHandles:
      changes.watchHandles === undefined
        ? current.watchHandles
        : handles(changes.watchHandles, 'watchHandles', problems),
    keywords:
      changes.keywords === undefined ? current.keywords : terms(changes.keywords, 'keywords', problems),
    autoRefresh: changes.autoRefresh ?? current.autoRefresh,
    redditKeywords:
      changes.redditKeywords === undefined
        ? current.redditKeywords
        : terms(changes.redditKeywords, 'redditKeywords', problems),
    subreddits:
      changes.subreddits === undefined
        ? current.subreddits
        : list(changes.subreddits, 'subreddits', problems, normalizeSubreddit, subredditRule),
    redditExcludeTerms:
      changes.redditExcludeTerms === undefined
        ? current.redditExcludeTerms
        : terms(changes.redditExcludeTerms, 'redditExcludeTerms', problems),
    feeds:
      changes.feeds === undefined ? current.feeds : feedsOf(changes.feeds, current.feeds, idSeed, problems),
    communities:
      changes.communities === undefined
        ? current.communities
        : changes.communities.length > engagementLimits.communities
          ? (problems.push({
              path: 'communities',
              message: `at most ${engagementLimits.communities} communities`,
            }),
            [])
          : list(changes.communities, 'communities', problems, normalizeXCommunity, communityRule),
  };
  if (problems.length > 0) throw new InvalidFields('Invalid engagement settings', problems);
  return next;
}

/** Compared by value: settings read back from the store come with their keys in another order. */
const sameSettings = (a: EngagementSettings, b: EngagementSettings) => canonicalJson(a) === canonicalJson(b);

export const engagementSettingsDecider: Decider<
  EngagementSettingsState,
  EngagementSettingsCommand,
  EngagementSettingsEvent
> = {
  initialState: { settings: defaultEngagementSettings, updatedAt: null, updatedBy: null },
  codec: engagementSettingsEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'UpdateEngagementSettings': {
        const settings = applySettingsChanges(state.settings, command.changes, command.idSeed);
        // Saving what is saved changes nothing (a retry, or a form sent back untouched).
        if (state.updatedAt !== null && sameSettings(settings, state.settings)) return [];
        return [
          {
            type: 'EngagementSettingsUpdated',
            data: { orgId: command.orgId, settings, updatedAt: command.now, updatedBy: command.by },
          },
        ];
      }
      default:
        return assertNever(command.type);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'EngagementSettingsUpdated':
        return {
          settings: event.data.settings,
          updatedAt: event.data.updatedAt,
          updatedBy: event.data.updatedBy,
        };
      default:
        return assertNever(event.type);
    }
  },
};

/** The settings as GET answers them: the spec's fields, and when and by whom they were saved (null: defaults). */
export interface EngagementSettingsView extends EngagementSettings {
  updatedAt: string | null;
  updatedBy: string | null;
}

export const engagementSettingsView = (state: EngagementSettingsState): EngagementSettingsView => ({
  ...state.settings,
  updatedAt: state.updatedAt,
  updatedBy: state.updatedBy,
});
