// How a failed AI job reaches the caller (issue 27, docs/decisions.md "AI jobs: errors"): one error in the
// spec's shape per failure of the run, with a stable code. Provider trouble is 503 (try again later), a refusal
// 422 (change the request), no credits 402; a slice rethrows these as they are.
import type { RunFailureCode } from '../agent-runs/event-codec.js';
import type { AppError } from '../shared/errors.js';
import { Conflict, PaymentRequired, ServiceUnavailable, Unprocessable } from '../shared/errors.js';

/** The error a caller gets for a run that failed with `code`. */
export function aiJobError(code: RunFailureCode, message: string): AppError {
  switch (code) {
    case 'ai_refused':
      return new Unprocessable(message, code);
    case 'payment_required':
      return new PaymentRequired(message, 'fair_use_limit');
    case 'worker_lost':
      return new Conflict(message, 'agent_run_worker_lost');
    case 'ai_provider_timeout':
    case 'ai_provider_busy':
    case 'ai_provider_unavailable':
    case 'ai_output_invalid':
    case 'job_failed':
      return new ServiceUnavailable(message, code);
  }
}
