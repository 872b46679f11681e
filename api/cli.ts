// Operator CLI (`npm run cli -- <command>`): projections status|rebuild, token, sandbox, openapi, sign-in-link, mail,
// billing simulate. Talks to the database directly, so it works whether or not the server is running.
// Only the usage lines are loaded before the arguments are read: `--help` loads nothing else, and a command loads
// the runtime and its own module (each heavy adapter stays behind its own dynamic import).
import type { Kysely } from 'kysely';
import {
  BILLING_USAGE,
  MAIL_USAGE,
  OPENAPI_USAGE,
  SANDBOX_USAGE,
  SIGN_IN_LINK_USAGE,
  TOKEN_USAGE,
} from './cli/usage.js';

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
  const [{ loadEnv }, { createLogger }, { createRuntime, publicBaseUrl }, { exitOnConfigError }] =
    await Promise.all([
      import('./env.js'),
      import('../infra/logging/logger.js'),
      import('./runtime.js'),
      import('./startup.js'),
    ]);
  const env = await exitOnConfigError(loadEnv);
  // Logs go to stderr so that stdout stays the command's output (the token is its last line).
  const logger = createLogger({
    level: env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL,
    destination: process.stderr,
  });
  const runtime = await exitOnConfigError(() => createRuntime({ env, logger, mode: 'cli' }));
  try {
    if (command === 'projections') {
      const { projectionsCommand } = await import('./cli/projections.js');
      return await projectionsCommand(rest, {
        db: runtime.database.db,
        eventStore: runtime.eventStore,
        projections: runtime.projections,
        logger,
        out,
      });
    }
    if (command === 'openapi') {
      const { openapiCommand } = await import('./cli/openapi.js');
      return await openapiCommand(rest, { app: runtime.app, out });
    }
    if (command === 'sign-in-link' || command === 'mail') {
      const deps = {
        db: runtime.database.db as Kysely<unknown>,
        publicBaseUrl: publicBaseUrl(env),
        smtpConfigured: env.SMTP_URL !== undefined,
        out,
      };
      const { mailCommand, signInLinkCommand } = await import('./cli/sign-in.js');
      return command === 'mail' ? await mailCommand(rest, deps) : await signInLinkCommand(rest, deps);
    }
    if (command === 'billing') {
      const { billingCommand } = await import('./cli/billing.js');
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
      const { sandboxCommand } = await import('./cli/sandbox.js');
      return await sandboxCommand(rest, {
        db: runtime.database.db,
        configuredFaults: env.SANDBOX_FAULTS,
        out,
      });
    }
    const { tokenCommand } = await import('./cli/token.js');
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => (await import('./startup.js')).exitWithFailure('')(error),
);
