// A slice's context is typed by what it declares (issue 25): `ctx.use` in a slice's routes and workers takes only
// a service it requires or provides, a provider's build only one its provider requires, and `ctx.env` has only
// the platform's variables and those of the settings the slice lists. The `@ts-expect-error` lines are the proof:
// `tsc --noEmit` fails if any of them type-checks. The runtime still refuses an undeclared service (slices.test.ts).
import { expect, test } from 'vitest';
import { z } from 'zod';
import { provide } from '../../../api/shared/provider.js';
import { service } from '../../../api/shared/service.js';
import { defineSlice } from '../../../api/shared/slice.js';
import { defineSettings } from '../../../infra/config/env.js';

interface Clock {
  now(): Date;
}
interface Counter {
  next(): number;
}
const clock = service<Clock>()('clock');
const counter = service<Counter>()('counter');
const stranger = service<Clock>()('another clock');
const noteSettings = defineSettings({ NOTES_LIMIT: z.coerce.number().default(10) });

test("a slice's context takes only the services it requires or provides, and its own settings", () => {
  const seen: unknown[] = [];
  const notes = defineSlice({
    name: 'notes',
    settings: [noteSettings],
    requires: [clock],
    provides: [
      provide(counter, {
        requires: [clock],
        build: (ctx) => {
          const now: Clock = ctx.use(clock);
          // @ts-expect-error -- the provider does not require the counter service (it provides it).
          ctx.use(counter);
          let n = now.now().getTime();
          return { next: () => ++n };
        },
      }),
    ],
    routes: (ctx) => {
      const limit: number = ctx.env.NOTES_LIMIT;
      const logLevel: string = ctx.env.LOG_LEVEL;
      seen.push(ctx.use(clock).now(), ctx.use(counter).next(), limit, logLevel);
      // @ts-expect-error -- a service of the same type, but not one the slice requires.
      ctx.use(stranger);
      // @ts-expect-error -- not a variable of the settings the slice lists.
      seen.push(ctx.env.PUBLISH_MAX_ATTEMPTS);
      return [];
    },
    workers: [
      {
        name: 'notes-worker',
        async start(ctx) {
          seen.push(ctx.use(counter));
          // @ts-expect-error -- the worker's context is the slice's: no undeclared service.
          seen.push(ctx.use(stranger));
          return undefined;
        },
      },
    ],
  });
  expect(notes.requires).toEqual([clock]);
  expect(notes.settings).toEqual([noteSettings]);
});
