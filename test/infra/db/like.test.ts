// The one LIKE escaping (infra/db/like.ts): wildcards and the escape character in the text match only themselves,
// checked against the real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { escapeLike } from '../../../infra/db/like.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';

let database: TestDatabase<unknown>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

async function matches(text: string, needle: string): Promise<boolean> {
  const pattern = `%${escapeLike(needle)}%`;
  const { rows } = await sql<{ hit: boolean }>`select ${text}::text ilike ${pattern} as hit`.execute(
    database.db,
  );
  return rows[0]?.hit ?? false;
}

describe('escapeLike', () => {
  it('escapes %, _ and the backslash', () => {
    expect(escapeLike('50%_off\\x')).toBe('50\\%\\_off\\\\x');
    expect(escapeLike('plain')).toBe('plain');
  });

  it('makes the wildcards match literally in PostgreSQL', async () => {
    expect(await matches('spring 50%_off sale', '50%_off')).toBe(true);
    expect(await matches('spring 50 and off', '50%off')).toBe(false);
    expect(await matches('abc', '_')).toBe(false);
    expect(await matches('a_c', '_')).toBe(true);
    expect(await matches('back\\slash', 'k\\s')).toBe(true);
    expect(await matches('backslash', 'k\\s')).toBe(false);
  });
});
