// Operator CLI (`npm run cli -- <command>`): projections status|rebuild, token, sandbox, openapi, sign-in-link, mail,
// billing simulate. Talks to the database directly, so it works whether or not the server is running.
import type { Kysely } from 'kysely';
import { loadEnv } from './env.js';
import { createLogger } from '../infra/logging/logger.js';
import { BILLING_USAGE, billingCommand } from './cli/billing.js';
import { OPENAPI_USAGE, openapiCommand } from './cli/openapi.js';
import { projectionsCommand } from './cli/projections.js';
import { SANDBOX_USAGE, sandboxCommand } from './cli/sandbox.js';
import { MAIL_USAGE, SIGN_IN_LINK_USAGE, mailCommand, signInLinkCommand } from './cli/sign-in.js';
import { TOKEN_USAGE, tokenCommand } from './cli/token.js';
import { createRuntime, publicBaseUrl } from './runtime.js';
import { exitOnConfigError, exitWithFailure } from './startup.js';

const USAGE = `usage: npm run cli -- <command>
  projections status                 every projection with version, checkpoint and lag
  projections rebuild <name>         rebuild a projection beside the serving one, then switch
  ${TOKEN_USAGE}
  ${SANDBOX_USAGE}
  ${OPENAPI_USAGE}
  ${SIGN_IN_LINK_USAGE}
  ${MAIL_USAGE}
  ${BILLING_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const commands = ['projections', 'token', 'sandbox', 'openapi', 'sign-in-link', 'mail', 'billing'];
  if (command === undefined || !commands.includes(command)) {
    out(USAGE);
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
  const env = await exitOnConfigError(loadEnv);
  // Logs go to stderr so that stdout stays the command's output (the token is its last line).
  const logger = createLogger({
    level: env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL,
    destination: process.stderr,
  });
  const runtime = await exitOnConfigError(() => createRuntime({ env, logger, mode: 'cli' }));
  try {
    if (command === 'projections') {
      return await projectionsCommand(rest, {
        db: runtime.database.db,
        eventStore: runtime.eventStore,
        projections: runtime.projections,
        logger,
        out,
      });
    }
    if (command === 'openapi') return await openapiCommand(rest, { app: runtime.app, out });
    if (command === 'sign-in-link' || command === 'mail') {
      const deps = {
        db: runtime.database.db as Kysely<unknown>,
        publicBaseUrl: publicBaseUrl(env),
        smtpConfigured: env.SMTP_URL !== undefined,
        out,
      };
      return command === 'mail' ? await mailCommand(rest, deps) : await signInLinkCommand(rest, deps);
    }
    if (command === 'billing') {
      return await billingCommand(rest, {
        db: runtime.database.db,
        commands: runtime.commands,
        env,
        publicBaseUrl: publicBaseUrl(env),
        tokenCipher: runtime.tokenCipher,
        out,
      });
    }
    if (command === 'sandbox') {
      return await sandboxCommand(rest, {
        db: runtime.database.db,
        configuredFaults: env.SANDBOX_FAULTS,
        out,
      });
    }
    return await tokenCommand(rest, {
      commands: runtime.commands,
      auth: runtime.auth,
      out,
      workspacesOf: async (userId) =>
        runtime.readModels
          .selectFrom('workspace_members')
          .select(['org_id as orgId', 'role'])
          .where('user_id', '=', userId)
          .orderBy('joined_at')
          .execute()
          .catch(() => []),
    });
  } finally {
    await runtime.stop();
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code), exitWithFailure(''));
