// The billing slice's operations (api/shared/operation.ts), in the order their routes go into the app: the
// subscription, credit usage (with the get_usage tool) and history operations. The webhooks and the sandbox
// provider's pages stay raw routes (api/billing/webhook-routes.ts).
import { operationGroup } from '../../shared/operation.js';
import { billingServices } from '../services.js';
import { creditOperations } from './credits.js';
import { historyOperations } from './history.js';
import { subscriptionOperations } from './subscription.js';

export const billingOperations = operationGroup(
  (ctx) => ({ services: ctx.services, billing: ctx.use(billingServices) }),
  [...subscriptionOperations, ...creditOperations, ...historyOperations],
);
