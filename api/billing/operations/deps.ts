// What the billing slice's operations share: their use cases' dependencies (the runtime's route services and
// the billing services, built once per runtime) and their access: owners and admins (billing:manage), and no
// 402 (`billing: null`), since billing and fixing the payment is how an overdue workspace gets out.
import { operationsWith } from '../../shared/operation.js';
import type { RouteServices } from '../../shared/services.js';
import type { BillingServices } from '../services.js';

export interface BillingOperationDeps {
  services: RouteServices;
  billing: BillingServices;
}

export const billingOperation = operationsWith<BillingOperationDeps>();

/** Owners and admins; exempt from the 402, as everything under ORG/billing is. */
export const managing = { permission: 'billing:manage', billing: null } as const;
