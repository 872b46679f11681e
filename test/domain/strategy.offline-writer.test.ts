// The strategy's offline writer on two fixture brands (a B2B SaaS company, a personal creator): grounded in the
// brand context (pillars from topics, products and expertise; the audience from the outline; channels from the
// connected platforms; angles from the differentiators), a mix summing to 100, deterministic, valid as a version's
// content, and the prompt built from public context. Its outputs are checked in as docs/examples/offline-strategy.md
// (`UPDATE_EXAMPLES=1` rewrites it); this test fails when the writer and the examples drift apart.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  contentOfGenerated,
  generatedStrategySchema,
  generateStrategyJob,
  writeStrategyOffline,
  type GeneratedStrategy,
  type StrategyGenerateInput,
} from '../../domain/strategy/generate-job.js';
import { contentProblems } from '../../domain/strategy/strategy.js';
import { b2bSaasBrand, personalCreatorBrand } from '../fixtures/brand-contexts.js';

const saas: StrategyGenerateInput = {
  goal: 'Book 30 demos a month with finance leaders.',
  brand: b2bSaasBrand,
  workspaceName: 'Ledgerly',
  connectedPlatforms: ['x', 'linkedin'],
};
const creator: StrategyGenerateInput = {
  goal: null,
  brand: personalCreatorBrand,
  workspaceName: 'Maya',
  connectedPlatforms: ['bluesky', 'instagram', 'x'],
};

const sum = (s: GeneratedStrategy) => s.contentMix.reduce((n, m) => n + m.targetPercent, 0);

describe('the offline strategy writer', () => {
  test('B2B SaaS: grounded in topics, products, audience, differentiators, the goal and the connected platforms', () => {
    const s = writeStrategyOffline(saas);
    expect(s.primaryObjective).toBe('Book 30 demos a month with finance leaders');
    expect(s.targetAudience).toBe('Controllers at mid-sized companies and CFOs of scale-ups');
    expect(s.pillars.map((p) => p.name)).toEqual([
      'Month-end close',
      'Audit readiness',
      'Finance automation',
      'Automated bank reconciliation',
      'Close checklist',
    ]);
    // LinkedIn first for a business; both connected platforms, nothing else.
    expect(s.channelPriorities).toEqual([
      { platform: 'linkedin', enabled: true, postsPerWeek: 3 },
      { platform: 'x', enabled: true, postsPerWeek: 5 },
    ]);
    // A goal about demos leans promotional.
    expect(s.contentMix.find((m) => m.contentType === 'promotional')?.targetPercent).toBe(25);
    expect(sum(s)).toBe(100);
    expect(s.positioningAngles.join(' ')).toMatch(/works on top of the ERP you already have/);
    expect(s.positioningAngles.join(' ')).toMatch(/spreadsheets are not a control/i);
    expect(s.guardrailNotes).toContain('Never write "game-changer".');
    expect(s.opportunities.map((o) => o.theme)).toContain('Accounting operations');
    expect(s.recommendations).toEqual([]);
  });

  test('personal creator: topics and expertise as pillars, a personal mix, platforms by fit, an unconfirmed profile flagged', () => {
    const s = writeStrategyOffline(creator);
    expect(s.pillars.map((p) => p.name)).toEqual([
      'Design tokens',
      'Component APIs',
      'Working as a freelancer',
      'Design systems',
      'Accessibility',
    ]);
    expect(s.targetAudience).toBe(
      'People who follow Maya Chen for design tokens, component APIs and working as a freelancer',
    );
    expect(s.primaryObjective).toBe('Grow an engaged audience around design tokens and component APIs');
    expect(s.channelPriorities.map((c) => c.platform)).toEqual(['x', 'instagram', 'bluesky']);
    expect(s.contentMix.find((m) => m.contentType === 'personal')?.targetPercent).toBe(25);
    expect(sum(s)).toBe(100);
    expect(s.guardrailNotes.join(' ')).toMatch(/not confirmed/);
    expect(s.recommendations.map((r) => r.summary)).toEqual([
      'Confirm the brand profile',
      'Give the strategy a goal',
    ]);
  });

  test('deterministic, valid against the job schema, and valid as a version', () => {
    for (const input of [saas, creator, { ...saas, brand: null, connectedPlatforms: [] }]) {
      const s = writeStrategyOffline(input);
      expect(writeStrategyOffline(input)).toEqual(s);
      expect(generatedStrategySchema.safeParse(s).success).toBe(true);
      const content = contentOfGenerated(s, {
        goal: input.goal,
        idSeed: 'seed',
        now: '2026-11-29T00:00:00.000Z',
      });
      expect(contentProblems(content)).toEqual([]);
    }
  });

  test('the prompt carries the goal, the platforms and the public brand context', () => {
    const { system, prompt } = generateStrategyJob.prompt(saas);
    expect(system).toMatch(/sum to exactly 100/);
    expect(prompt).toMatch(/Book 30 demos/);
    expect(prompt).toMatch(/Connected platforms: x, linkedin/);
    expect(prompt).toMatch(/Works on top of the ERP you already have/);
    expect(prompt).toMatch(/never say: game-changer; revolutionary/);
  });
});

// ---- The checked-in examples ----

function render(title: string, input: StrategyGenerateInput): string {
  const s = writeStrategyOffline(input);
  const list = (items: readonly string[]) =>
    items.length === 0 ? '- (none)' : items.map((i) => `- ${i}`).join('\n');
  return [
    `## ${title}`,
    '',
    `Input: goal ${input.goal ? `"${input.goal}"` : '(none)'}; workspace "${input.workspaceName}"; connected: ` +
      `${input.connectedPlatforms.join(', ') || '(none)'}; brand context: \`test/fixtures/brand-contexts.ts\`.`,
    '',
    `**Primary objective:** ${s.primaryObjective}`,
    '',
    `**Target audience:** ${s.targetAudience}`,
    '',
    '**Pillars**',
    '',
    list(s.pillars.map((p) => `**${p.name}**: ${p.description} _(keywords: ${p.keywords.join(', ')})_`)),
    '',
    '**Channel priorities**',
    '',
    s.channelPriorities.map((c, i) => `${i + 1}. ${c.platform}: ${c.postsPerWeek} posts a week`).join('\n'),
    '',
    `**Content mix:** ${s.contentMix.map((m) => `${m.contentType} ${m.targetPercent}%`).join(', ')}`,
    '',
    '**Positioning angles**',
    '',
    list(s.positioningAngles),
    '',
    '**Opportunities**',
    '',
    list(s.opportunities.map((o) => `**${o.theme}**: ${o.rationale}`)),
    '',
    '**Guardrail notes**',
    '',
    list(s.guardrailNotes),
    '',
    '**Recommendations**',
    '',
    list(s.recommendations.map((r) => `${r.summary} (${r.confidence}): ${r.rationale}`)),
    '',
  ].join('\n');
}

const examplesPath = 'docs/examples/offline-strategy.md';

test('docs/examples/offline-strategy.md shows what the offline writer writes for both fixture brands', () => {
  const doc = [
    '# The offline strategy writer: two examples',
    '',
    'What `POST ORG/strategy/generate` proposes with no model configured (`meta.source: heuristic`,',
    '`meta.providerModel: offline`), for two fixture brand contexts. Generated from the code by',
    '`test/domain/strategy.offline-writer.test.ts` (`UPDATE_EXAMPLES=1` rewrites this file; the test fails when',
    'it drifts). Ids, priorities and dates are added when the version is stored.',
    '',
    render('A B2B SaaS company (Ledgerly)', saas),
    render('A personal creator (Maya Chen)', creator),
  ].join('\n');
  if (process.env.UPDATE_EXAMPLES === '1') writeFileSync(examplesPath, doc);
  expect(readFileSync(examplesPath, 'utf8')).toBe(doc);
});
