// `cli openapi [file]`: the OpenAPI document the server serves at /v1/openapi.json, built from the same runtime
// (every mounted route), to stdout or a file. `npm run lint:openapi` lints it; client generators can read it.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OPENAPI_USAGE } from './usage.js';
export { OPENAPI_USAGE } from './usage.js';

export interface OpenApiCommandDeps {
  /** The service's own app: the document is what it answers, servers and all. */
  app: { request(path: string): Response | Promise<Response> };
  out: (line: string) => void;
}

export async function openapiCommand(args: string[], deps: OpenApiCommandDeps): Promise<number> {
  if (args.length > 1 || args[0]?.startsWith('-')) {
    deps.out(`usage: ${OPENAPI_USAGE}`);
    return 2;
  }
  const res = await deps.app.request('/v1/openapi.json');
  if (res.status !== 200) {
    deps.out(`GET /v1/openapi.json answered ${res.status}`);
    return 1;
  }
  const text = `${JSON.stringify(await res.json(), null, 2)}\n`;
  const [file] = args;
  if (file === undefined) {
    deps.out(text.trimEnd());
    return 0;
  }
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await writeFile(file, text);
  return 0;
}
