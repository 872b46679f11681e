// Probes for operators and orchestrators: /healthz says the process answers, /readyz that its
// dependencies (database, event store, …) do. Neither needs a token, so /readyz names failing checks but
// never says why (driver errors name hosts, ports, users): the reasons go to the log.
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
  operationId: 'checkLiveness',
  security: [],
  tags: ['operations'],
  summary: 'Liveness: the process answers',
  responses: { 200: jsonResponse(dataOf(Health), 'Alive') },
});

const readyRoute = createRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'checkReadiness',
  security: [],
  tags: ['operations'],
  summary: 'Readiness: dependencies answer',
  description:
    'On 503, `details` names each failing check (`path` is the check name); the reasons are in the service log.',
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
      c.get('logger').warn(
        { checks: Object.fromEntries(failing.map(([name, check]) => [name, check.detail ?? 'not ok'])) },
        'not ready',
      );
      throw new ServiceUnavailable(
        'Service not ready',
        'not_ready',
        failing.map(([name]) => ({ path: name, message: 'not ready' })),
      );
    }
    const checks = Object.fromEntries(
      Object.entries(report.checks).map(([name, check]) => [name, { ok: check.ok }]),
    );
    return c.json({ data: { ok: true as const, checks } }, 200);
  });
}
