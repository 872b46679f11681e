// The CLI's usage lines, apart from the commands so that `cli -- --help` (and a mistyped command) loads nothing
// else: each command module re-exports its own.

export const BILLING_USAGE =
  'billing simulate <paid|payment-failed|past-due|recovered|period-end> --workspace <slug>   sandbox payments';
export const OPENAPI_USAGE =
  'openapi [file]                     the OpenAPI document (/v1/openapi.json), to a file or stdout';
export const SANDBOX_USAGE = `sandbox faults                     the faults in effect and where they come from
  sandbox faults set <faults>        e.g. fail=0.2,timeout=0.05,pending=0.3,x:reject=0.1 (overrides SANDBOX_FAULTS)
  sandbox faults clear               no faults, whatever SANDBOX_FAULTS says
  sandbox faults reset               drop the run-time setting: SANDBOX_FAULTS applies again
  sandbox revoke <platform> <accountExternalId>   the platform refuses the account's tokens (refresh and calls: auth)
  sandbox restore <platform> <accountExternalId>  lift a revocation
  sandbox stats                      publications per platform and posts published more than once`;
export const MAIL_USAGE = 'usage: mail last --to <email>';
export const SIGN_IN_LINK_USAGE = 'usage: sign-in-link --email <email> [--return-to <path>]';
export const TOKEN_USAGE =
  'usage: token --email <email> [--workspace <slug>] [--role owner|admin|reviewer|editor|viewer]';
