// List queries as the spec shapes them: page/limit/sortBy/sortDir/filter[field]/filterOp[field], the
// refusals with 400 + details, and the page envelope.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../domain/shared/errors.js';
import { defineListQuery } from '../../../api/platform/paging.js';
import { toPage } from '../../../domain/shared/page.js';
import { z } from '@hono/zod-openapi';
import { orgA, sampleApp, tokenFor, widgetListQuery } from './support.js';

const widgets = `/v1/orgs/${orgA}/widgets`;

function details(fn: () => unknown): Array<{ path: string; message: string }> {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details ?? [];
  }
  throw new Error('expected a ValidationError');
}

describe('defineListQuery parse', () => {
  it('applies defaults', () => {
    expect(widgetListQuery.parse({})).toEqual({
      page: 1,
      limit: 25,
      offset: 0,
      sortDir: 'asc',
      filters: [],
      extra: {},
    });
  });

  it('parses paging, sorting and every operator', () => {
    const q = widgetListQuery.parse({
      page: '3',
      limit: '10',
      sortBy: 'count',
      sortDir: 'desc',
      'filter[name]': 'spring',
      'filterOp[name]': 'contains',
      'filter[status]': 'draft, published',
      'filterOp[status]': 'in',
      'filter[count]': '5',
      'filterOp[count]': 'gte',
    });
    expect(q).toEqual({
      page: 3,
      limit: 10,
      offset: 20,
      sortBy: 'count',
      sortDir: 'desc',
      filters: [
        { field: 'name', op: 'contains', value: 'spring' },
        { field: 'status', op: 'in', values: ['draft', 'published'] },
        { field: 'count', op: 'gte', value: 5 },
      ],
      extra: {},
    });
  });

  it('defaults the operator to eq', () => {
    expect(widgetListQuery.parse({ 'filter[status]': 'draft' }).filters).toEqual([
      { field: 'status', op: 'eq', value: 'draft' },
    ]);
  });

  it.each([
    [{ 'filter[colour]': 'red' }, 'query.filter[colour]', /Unknown filter field "colour"/],
    [{ 'filterOp[colour]': 'eq' }, 'query.filterOp[colour]', /Unknown filter field/],
    [{ 'filter[name]': 'x', 'filterOp[name]': 'like' }, 'query.filterOp[name]', /eq.*contains/],
    [{ 'filter[name]': 'x', 'filterOp[name]': 'gte' }, 'query.filterOp[name]', /./],
    [{ 'filter[status]': 'archived' }, 'query.filter[status]', /./],
    [{ 'filter[status]': 'draft,,published', 'filterOp[status]': 'in' }, 'query.filter[status]', /Empty/],
    [{ 'filter[count]': 'many' }, 'query.filter[count]', /./],
    [{ 'filterOp[name]': 'eq' }, 'query.filterOp[name]', /without filter\[name\]/],
    [{ 'filter[name]': '' }, 'query.filter[name]', /1 to 500/],
    [{ limit: '101' }, 'query.limit', /100/],
    [{ limit: '0' }, 'query.limit', /./],
    [{ page: '0' }, 'query.page', /./],
    [{ page: '1.5' }, 'query.page', /./],
    [{ page: 'two' }, 'query.page', /./],
    [{ sortBy: 'secret' }, 'query.sortBy', /name.*count/],
    [{ sortDir: 'up' }, 'query.sortDir', /./],
    [{ limt: '5' }, 'query.limt', /Unknown query parameter/],
    [{ 'filter[name]': ['a', 'b'] }, 'query.filter[name]', /./],
  ])('refuses %j on %s', (query, path, message) => {
    const found = details(() => widgetListQuery.parse(query));
    expect(found).toContainEqual({ path, message: expect.stringMatching(message) });
  });

  it('reports every problem at once', () => {
    const found = details(() => widgetListQuery.parse({ limit: '500', 'filter[nope]': 'x', sortBy: 'x' }));
    expect(found.map((d) => d.path).sort()).toEqual(['query.filter[nope]', 'query.limit', 'query.sortBy']);
  });

  it('takes endpoint-specific parameters through `extra`', () => {
    const q = defineListQuery({ defaultLimit: 10, maxLimit: 50, extra: { window: z.enum(['7d', '30d']) } });
    expect(q.parse({ window: '7d' }).extra).toEqual({ window: '7d' });
    expect(details(() => q.parse({ window: '1y' }))).toContainEqual({
      path: 'query.window',
      message: expect.any(String),
    });
  });

  it('uses the configured default sort and a field default operator other than eq', () => {
    const q = defineListQuery({
      filters: { createdAt: { ops: ['gte', 'lte'], value: z.iso.datetime() } },
      sortBy: ['createdAt'],
      defaultSort: { by: 'createdAt', dir: 'desc' },
      defaultLimit: 10,
      maxLimit: 50,
    });
    const parsed = q.parse({ 'filter[createdAt]': '2024-01-01T00:00:00Z' });
    expect(parsed).toMatchObject({
      sortBy: 'createdAt',
      sortDir: 'desc',
      filters: [{ field: 'createdAt', op: 'gte', value: '2024-01-01T00:00:00Z' }],
    });
  });
});

describe('list query on a route', () => {
  it('hands the parsed query to the handler', async () => {
    const { app, auth } = await sampleApp();
    const token = await tokenFor(auth);
    const res = await app.request(`${widgets}?limit=5&filter[status]=draft,published&filterOp[status]=in`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { items: [], page: 1, limit: 5, total: 0, hasMore: false } });
    expect(JSON.parse(res.headers.get('X-Parsed-Query')!)).toMatchObject({
      filters: [{ field: 'status', op: 'in', values: ['draft', 'published'] }],
    });
  });

  it.each([
    ['filter[colour]=red', 'query.filter[colour]'],
    ['filter[name]=x&filterOp[name]=in', 'query.filterOp[name]'],
    ['filter[name]=x&filterOp[name]=regex', 'query.filterOp[name]'],
    ['limit=101', 'query.limit'],
  ])('answers 400 for ?%s', async (qs, path) => {
    const { app, auth } = await sampleApp();
    const token = await tokenFor(auth);
    const res = await app.request(`${widgets}?${qs}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; details: Array<{ path: string }> };
    expect(body.error).toBe('Invalid request');
    expect(body.details.map((d) => d.path)).toEqual([path]);
  });
});

describe('toPage', () => {
  it('says whether more items follow', () => {
    expect(toPage(['a', 'b'], 5, 1, 2)).toEqual({
      items: ['a', 'b'],
      page: 1,
      limit: 2,
      total: 5,
      hasMore: true,
    });
    expect(toPage(['e'], 5, 3, 2).hasMore).toBe(false);
    expect(toPage(['c', 'd'], 4, 2, 2).hasMore).toBe(false);
  });
});
