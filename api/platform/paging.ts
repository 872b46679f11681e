// Paged, filtered, sorted list queries as the spec shapes them: page, limit, sortBy, sortDir,
// filter[field] and filterOp[field]; one definition gives the OpenAPI parameters and the parser (each read
// model turns the parsed query into its own SQL).
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ValidationError } from '../../domain/shared/errors.js';
import { zodDetails } from './errors.js';

export const filterOperators = ['eq', 'in', 'contains', 'gte', 'lte'] as const;
export type FilterOperator = (typeof filterOperators)[number];
export type SortDirection = 'asc' | 'desc';

/** Operators allowed for a field, optionally with the schema each value must pass (default: a string). */
export type FilterSpec =
  | readonly FilterOperator[]
  | {
      ops: readonly FilterOperator[];
      /** Parses one value given as a string, e.g. `z.enum([...])`, `z.coerce.number()`, `z.iso.datetime()`. */
      value?: z.ZodType;
      description?: string;
    };

export type ParsedFilter<Field extends string = string> =
  | { field: Field; op: Exclude<FilterOperator, 'in'>; value: unknown }
  | { field: Field; op: 'in'; values: unknown[] };

export interface ListQuery<Field extends string = string, Sort extends string = string> {
  page: number;
  limit: number;
  offset: number;
  sortBy?: Sort;
  sortDir: SortDirection;
  filters: ParsedFilter<Field>[];
}

export interface ListQueryOptions<F extends Record<string, FilterSpec>, S extends string> {
  filters?: F;
  sortBy?: readonly S[];
  defaultSort?: { by: S; dir?: SortDirection };
  defaultLimit: number;
  maxLimit: number;
  /** Further query parameters of this endpoint (they are validated, documented, and not refused). */
  extra?: z.ZodRawShape;
}

/** A parsed list query plus the endpoint's `extra` parameters. */
export type ParsedListQuery<Field extends string, Sort extends string> = ListQuery<Field, Sort> & {
  extra: Record<string, unknown>;
};

export interface ListQueryDefinition<Field extends string, Sort extends string> {
  /** The `request.query` of a createRoute; `c.req.valid('query')` is then the parsed ListQuery. */
  schema: z.ZodPipe<z.ZodObject, z.ZodTransform<ParsedListQuery<Field, Sort>, Record<string, unknown>>>;
  /** Parses a raw query (e.g. `c.req.queries()` flattened) or a hono context; throws ValidationError. */
  parse(input: Context | Record<string, string | string[] | undefined>): ParsedListQuery<Field, Sort>;
}

const maxInValues = 100;
const maxValueLength = 500;
const bracketed = /^(filter|filterOp)\[(.*)\]$/;

function normaliseSpec(spec: FilterSpec): {
  ops: readonly FilterOperator[];
  value: z.ZodType;
  description?: string;
} {
  if (Array.isArray(spec)) return { ops: spec as readonly FilterOperator[], value: z.string() };
  const s = spec as Exclude<FilterSpec, readonly FilterOperator[]>;
  return {
    ops: s.ops,
    value: s.value ?? z.string(),
    ...(s.description ? { description: s.description } : {}),
  };
}

/**
 * The `page` and `limit` query fields every paged list takes (coerced from the query string, bounds stated for
 * the document): the list queries' own, and lists whose query is not a `defineListQuery`.
 */
export function pageParams(defaultLimit: number, maxLimit: number) {
  return {
    page: z.coerce
      .number()
      .int()
      .min(1)
      .default(1)
      .openapi({ type: 'integer', minimum: 1, default: 1, description: 'Page number, 1-based' }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(maxLimit)
      .default(defaultLimit)
      // Coerced numbers lose their bounds in the generated schema; state them for the document.
      .openapi({
        type: 'integer',
        minimum: 1,
        maximum: maxLimit,
        default: defaultLimit,
        description: `Page size (default ${defaultLimit}, maximum ${maxLimit})`,
      }),
  };
}

/** The operator used when `filterOp[field]` is absent: `eq` where allowed, else the field's first. */
function defaultOp(ops: readonly FilterOperator[]): FilterOperator {
  return ops.includes('eq') ? 'eq' : (ops[0] ?? 'eq');
}

export function defineListQuery<
  F extends Record<string, FilterSpec> = Record<never, FilterSpec>,
  S extends string = never,
>(options: ListQueryOptions<F, S>): ListQueryDefinition<Extract<keyof F, string>, S> {
  type Field = Extract<keyof F, string>;
  const filters = Object.entries(options.filters ?? {}).map(([field, spec]) => ({
    field: field as Field,
    ...normaliseSpec(spec),
  }));
  const sortFields = options.sortBy ?? [];

  const shape: Record<string, z.ZodType> = { ...pageParams(options.defaultLimit, options.maxLimit) };
  if (sortFields.length > 0) {
    shape.sortBy = z
      .enum(sortFields as [S, ...S[]])
      .optional()
      .openapi({ description: 'Field to sort by' });
  }
  shape.sortDir = z
    .enum(['asc', 'desc'])
    .optional()
    .openapi({ description: `Sort direction (default ${options.defaultSort?.dir ?? 'asc'})` });
  for (const f of filters) {
    shape[`filter[${f.field}]`] = z
      .string()
      .optional()
      .openapi({
        description:
          (f.description ? `${f.description}. ` : '') +
          `Filter on ${f.field}` +
          (f.ops.includes('in') ? '; with filterOp `in`, comma-separated values' : ''),
      });
    shape[`filterOp[${f.field}]`] = z
      .enum(f.ops as [FilterOperator, ...FilterOperator[]])
      .optional()
      .openapi({ description: `Operator for filter[${f.field}] (default ${defaultOp(f.ops)})` });
  }
  const extraKeys = Object.keys(options.extra ?? {});
  Object.assign(shape, options.extra ?? {});
  const known = new Set(Object.keys(shape));

  /** Checks keys and filter values against the definition; shared by the check and the transform. */
  function evaluate(raw: Record<string, unknown>) {
    const problems: Array<{ key: string; message: string }> = [];
    for (const key of Object.keys(raw)) {
      if (known.has(key)) continue;
      const m = bracketed.exec(key);
      problems.push({ key, message: m ? `Unknown filter field "${m[2]}"` : 'Unknown query parameter' });
    }
    const parsed: ParsedFilter<Field>[] = [];
    for (const f of filters) {
      const valueKey = `filter[${f.field}]`;
      const opKey = `filterOp[${f.field}]`;
      const text = raw[valueKey];
      const givenOp = raw[opKey];
      if (text === undefined) {
        if (givenOp !== undefined) {
          problems.push({ key: opKey, message: `filterOp given without filter[${f.field}]` });
        }
        continue;
      }
      // A repeated parameter or an operator outside the field's list already failed its own schema.
      if (typeof text !== 'string') continue;
      if (givenOp !== undefined && !f.ops.includes(givenOp as FilterOperator)) continue;
      const op = (givenOp as FilterOperator | undefined) ?? defaultOp(f.ops);
      if (text.length === 0 || text.length > maxValueLength) {
        problems.push({ key: valueKey, message: `Must be 1 to ${maxValueLength} characters` });
        continue;
      }
      if (op === 'contains') {
        parsed.push({ field: f.field, op, value: text });
        continue;
      }
      const texts = op === 'in' ? text.split(',').map((v) => v.trim()) : [text];
      if (texts.length > maxInValues) {
        problems.push({ key: valueKey, message: `At most ${maxInValues} values` });
        continue;
      }
      const values: unknown[] = [];
      for (const t of texts) {
        const result = t === '' ? undefined : f.value.safeParse(t);
        if (!result?.success) {
          const why = result?.error.issues[0]?.message ?? 'Empty value';
          problems.push({ key: valueKey, message: op === 'in' ? `Invalid value "${t}": ${why}` : why });
          break;
        }
        values.push(result.data);
      }
      if (values.length !== texts.length) continue;
      parsed.push(op === 'in' ? { field: f.field, op, values } : { field: f.field, op, value: values[0] });
    }
    return { parsed, problems };
  }

  const schema = z
    .looseObject(shape)
    // Runs even when a field failed (`when`), so every problem is reported in one answer.
    .superRefine(
      (value, ctx) => {
        const raw = value as Record<string, unknown>;
        for (const { key, message } of evaluate(raw).problems) {
          ctx.addIssue({ code: 'custom', message, path: [key], input: raw[key] });
        }
      },
      { when: () => true },
    )
    .transform((input) => {
      const raw = input as Record<string, unknown>;
      const page = raw.page as number;
      const limit = raw.limit as number;
      const sortBy = (raw.sortBy as S | undefined) ?? options.defaultSort?.by;
      const extra: Record<string, unknown> = {};
      for (const key of extraKeys) extra[key] = raw[key];
      return {
        page,
        limit,
        offset: (page - 1) * limit,
        ...(sortBy !== undefined ? { sortBy } : {}),
        sortDir: (raw.sortDir as SortDirection | undefined) ?? options.defaultSort?.dir ?? 'asc',
        filters: evaluate(raw).parsed,
        extra,
      };
    });

  return {
    schema: schema,
    parse(input) {
      const query = isContext(input) ? flattenQueries(input.req.queries()) : input;
      const result = schema.safeParse(query);
      if (!result.success)
        throw new ValidationError('Invalid request', undefined, zodDetails(result.error, 'query'));
      return result.data;
    },
  };
}

function isContext(input: unknown): input is Context {
  return typeof input === 'object' && input !== null && 'req' in input && typeof input.req === 'object';
}

/** hono's validator shape: a repeated parameter becomes an array, which the schema then refuses. */
function flattenQueries(queries: Record<string, string[]>): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(queries).map(([k, v]) => [k, v.length === 1 ? (v[0] as string) : v]),
  );
}

/**
 * The fields of the paged list object (domain/shared/page.ts), in the document's order. `bounds: false` leaves out
 * the minimums of page, limit and total (MediaPage was published without them).
 */
export function pageShape<T extends z.ZodType>(item: T, options: { bounds?: boolean } = {}) {
  const bounded = options.bounds ?? true;
  return {
    items: z.array(item),
    page: bounded ? z.number().int().min(1) : z.number().int(),
    limit: bounded ? z.number().int().min(1) : z.number().int(),
    total: bounded ? z.number().int().min(0) : z.number().int(),
    hasMore: z.boolean(),
  };
}

/** The paged list object: `{ items, page, limit, total, hasMore }`. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object(pageShape(item));
}

/** The success body of a paged list endpoint: `{ data: { items, page, limit, total, hasMore } }`. */
export function pagedResponse<T extends z.ZodType>(item: T) {
  return z.object({ data: pageSchema(item) });
}
