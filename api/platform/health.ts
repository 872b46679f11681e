// Probes for operators and orchestrators: /healthz says the process answers, /readyz that its
// dependencies (database, event store, …) do. Neither needs a token.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ServiceUnavailable } from '../../domain/shared/errors.js';
import type { AppEnv } from './app-env.js';
import { errorResponses } from './errors.js';
import { dataOf, jsonResponse } from './responses.js';

export interface ReadinessReport {
  ok: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

export type Readiness = () => Promise<ReadinessReport>;

const Check = z.object({ ok: z.boolean(), detail: z.string().optional() });
const Health = z.object({ status: z.literal('ok') }).openapi('Health');
const Ready = z.object({ ok: z.literal(true), checks: z.record(z.string(), Check) }).openapi('Readiness');

const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['operations'],
  summary: 'Liveness: the process answers',
  responses: { 200: jsonResponse(dataOf(Health), 'Alive') },
});

const readyRoute = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['operations'],
  summary: 'Readiness: dependencies answer',
  description: 'On 503, `details` names each failing check (`path` is the check name).',
  responses: { 200: jsonResponse(dataOf(Ready), 'Ready'), ...errorResponses(503) },
});

export function registerHealthRoutes(app: OpenAPIHono<AppEnv>, readiness: Readiness): void {
  app.openapi(healthRoute, (c) => c.json({ data: { status: 'ok' as const } }, 200));
  app.openapi(readyRoute, async (c) => {
    let report: ReadinessReport;
    try {
      report = await readiness();
    } catch (error) {
      c.get('logger').warn({ err: error }, 'readiness check threw');
      report = { ok: false, checks: { readiness: { ok: false, detail: 'check failed' } } };
    }
    if (!report.ok) {
      const failing = Object.entries(report.checks).filter(([, check]) => !check.ok);
      throw new ServiceUnavailable(
        'Service not ready',
        'not_ready',
        failing.map(([name, check]) => ({ path: name, message: check.detail ?? 'not ok' })),
      );
    }
    return c.json({ data: { ok: true as const, checks: report.checks } }, 200);
  });
}
