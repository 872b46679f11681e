// Idle is idle (issue 26): the default metrics' event-loop delay monitor ticks every
// EVENT_LOOP_MONITORING_PRECISION_MS, not prom-client's 10 ms (100 wake-ups a second of an idle process), and
// the lag metrics are still exported.
import perfHooks from 'node:perf_hooks';
import { afterEach, expect, test, vi } from 'vitest';
import { EVENT_LOOP_MONITORING_PRECISION_MS, Metrics } from '../../infra/metrics/metrics.js';

afterEach(() => {
  vi.restoreAllMocks();
});

test('the event-loop delay monitor ticks at the coarse precision; the lag metrics are exported', async () => {
  const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
  const metrics = new Metrics();
  expect(monitor).toHaveBeenCalledTimes(1);
  expect(monitor.mock.calls[0]![0]).toEqual({ resolution: EVENT_LOOP_MONITORING_PRECISION_MS });
  expect(EVENT_LOOP_MONITORING_PRECISION_MS).toBeGreaterThanOrEqual(100);
  const text = await metrics.registry.metrics();
  expect(text).toContain('nodejs_eventloop_lag_p99_seconds');
  expect(text).toContain('nodejs_eventloop_lag_max_seconds');
});
