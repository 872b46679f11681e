// The JSON error body `{ error, code?, details? }` for typed errors, as app.onError does it in the API;
// the storage route tests mount their routes behind this instead of the full application.
import { Hono } from 'hono';
import { AppError } from '../../../domain/shared/errors.js';

export function withErrorMapping(routes: Hono): Hono {
  const app = new Hono();
  app.route('/', routes);
  app.onError((error, c) => {
    if (error instanceof AppError) {
      return c.json(
        {
          error: error.message,
          ...(error.code !== undefined ? { code: error.code } : {}),
          ...(error.details !== undefined ? { details: error.details } : {}),
        },
        error.status,
      );
    }
    return c.json({ error: 'Internal server error' }, 500);
  });
  return app;
}
