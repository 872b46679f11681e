// The domain names fields in its own terms (`title`, `posts.0.contentText`); where a request carried them
// (`body.…`, `query.…`) is the API's to say (api/platform/errors.ts). Nothing under domain/ spells a wire path.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { InvalidFields, ValidationError } from '../../domain/shared/errors.js';
import { requestPathOf } from '../../api/platform/errors.js';

const root = join(import.meta.dirname, '../../domain');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

test('no domain module names a field by its place in a request', () => {
  const offending = sources(root).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line, index) => ({ file, line: index + 1, text: line }))
      // Code only: comments may say what the API does with a path.
      .filter(({ text }) => !/^\s*(\/\/|\/?\*)/.test(text))
      .filter(({ text }) => /['`](body|query|param|header|cookie)\.[A-Za-z]/.test(text)),
  );
  expect(offending).toEqual([]);
});

test('the API maps the domain’s field names to the request body in one place', () => {
  expect(new InvalidFields('x', [])).toBeInstanceOf(ValidationError);
  expect(requestPathOf('title')).toBe('body.title');
  expect(requestPathOf('posts.0.contentText')).toBe('body.posts.0.contentText');
  expect(requestPathOf('payloadPatch.poll.options')).toBe('body.poll.options');
  expect(requestPathOf('platformPayload.poll.options')).toBe('body.platformPayload.poll.options');
});
