// The LinkedIn sandbox's post reads (issue 31, the inspiration library): a post the sandbox published reads back
// with its text; any other post URN reads as one of a few sample posts, drawn from the URN (the same URN always
// reads the same post, with the same counts). URNs whose id ends in 404 read as missing, so callers can try it.
import type { Kysely } from 'kysely';
import type { CallContext } from '../port.js';
import type { LinkedInPostRead } from '../linkedin-reads.js';
import type { SandboxTables } from './migrations.js';
import { draws } from './x-reads.js';

const samples: { author: string; vanity: string; text: string }[] = [
  {
    author: 'Northwind Analytics',
    vanity: 'northwind-analytics',
    text: 'Most B2B onboarding fails in the first 10 minutes.\n\nWe cut time-to-value from 9 days to 2 by doing three things:\n\n1. One goal per first session\n2. Sample data loaded by default\n3. A human check-in on day 2\n\nWhat is the one step your onboarding could drop?',
  },
  {
    author: 'Contoso Labs',
    vanity: 'contoso-labs',
    text: 'Unpopular opinion: pricing pages should not have a "Contact sales" button for plans under $500.\n\nEvery extra call is a week lost for a buyer who already decided. Publish the price, let them start.\n\nAgree or disagree?',
  },
  {
    author: 'Fabrikam Studio',
    vanity: 'fabrikam-studio',
    text: 'Three years ago we shipped a redesign nobody asked for. Usage dropped 30%.\n\nThe lesson: talk to ten customers before you touch a screen they use every day.\n\nWe now run a five-question interview before every design sprint.',
  },
];

export function createSandboxLinkedInReads(deps: {
  db: Kysely<SandboxTables>;
  authorize: (context: CallContext) => Promise<unknown>;
  now: () => Date;
}) {
  return {
    async readLinkedInPost(context: CallContext, request: { urn: string }): Promise<LinkedInPostRead | null> {
      await deps.authorize(context);
      const url = `https://www.linkedin.com/feed/update/${request.urn}`;
      if (/404$/.test(request.urn)) return null;
      const published = await deps.db
        .selectFrom('sandbox_publications')
        .select(['text', 'status', 'created_at'])
        .where('platform', '=', 'linkedin')
        .where('external_id', '=', request.urn)
        .executeTakeFirst();
      const [pick = 0, age = 0, likes = 0, comments = 0] = draws(`linkedin-post:${request.urn}`);
      if (published && published.status === 'deleted') return null;
      const sample = samples[Math.floor(pick * samples.length)]!;
      const at = published
        ? new Date(published.created_at).toISOString()
        : new Date(deps.now().getTime() - Math.floor(age * 14 * 86_400_000)).toISOString();
      return {
        urn: request.urn,
        url,
        text: published?.text ?? sample.text,
        authorUrn: published
          ? context.account.accountExternalId
          : `urn:li:organization:9${Math.floor(pick * 1e6)}`,
        authorName: published ? null : sample.author,
        authorHandle: published ? null : sample.vanity,
        authorProfileUrl: published ? null : `https://www.linkedin.com/company/${sample.vanity}/`,
        publishedAt: at,
        media: [],
        likes: Math.floor(likes * 900),
        comments: Math.floor(comments * 120),
      };
    },
  };
}
