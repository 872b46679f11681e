// Paddle Billing entities as its API and notifications carry them (snake_case, amounts as strings of minor
// units), after the shapes Paddle documents: the adapter test's local server and the webhook tests answer these.
import type { ProviderSubscriptionRef } from '../../../infra/billing/provider.js';

export const orgId = '7c0e2a54-1d7f-4d8e-9a4b-3f2b1c0d9e8a';
export const subscriptionId = 'sub_01hv8x2tq7cx0jv3n5g1wq9e4a';
export const customerId = 'ctm_01hv8wz7k3f9cde2r6p0s8t1ab';
export const ref: ProviderSubscriptionRef = {
  orgId,
  providerCustomerId: customerId,
  providerSubscriptionId: subscriptionId,
};
export const secret = 'pdl_ntfset_01hv8y_test_secret_value';
export const meta = { request_id: 'b1c2d3e4-0000-4000-8000-000000000001' };

/** A price as Paddle's API returns it (price entity). */
export function price(id: string, amount: string, recurring: boolean) {
  return {
    id,
    product_id: 'pro_01hv8v0000000000000000000a',
    type: 'standard',
    description: recurring ? 'Monthly' : 'One-time',
    name: recurring ? 'Monthly' : 'Credit pack',
    tax_mode: 'account_setting',
    billing_cycle: recurring ? { interval: 'month', frequency: 1 } : null,
    trial_period: null,
    unit_price: { amount, currency_code: 'USD' },
    unit_price_overrides: [],
    quantity: { minimum: 1, maximum: 1 },
    status: 'active',
    custom_data: null,
    import_meta: null,
    created_at: '2026-01-05T10:00:00.000000Z',
    updated_at: '2026-01-05T10:00:00.000000Z',
  };
}

export const product = {
  id: 'pro_01hv8v0000000000000000000a',
  name: 'Pro',
  type: 'standard',
  tax_category: 'standard',
  description: null,
  image_url: null,
  custom_data: null,
  status: 'active',
  import_meta: null,
  created_at: '2026-01-05T10:00:00.000000Z',
  updated_at: '2026-01-05T10:00:00.000000Z',
};

/** The subscription entity (API and notification shape). */
export function subscription(overrides: Record<string, unknown> = {}) {
  return {
    id: subscriptionId,
    status: 'active',
    customer_id: customerId,
    address_id: 'add_01hv8wz9m1n2p3q4r5s6t7u8vw',
    business_id: null,
    currency_code: 'USD',
    created_at: '2026-11-01T09:00:00.000000Z',
    updated_at: '2026-11-20T09:00:00.000000Z',
    started_at: '2026-11-01T09:00:00.000000Z',
    first_billed_at: '2026-11-01T09:00:00.000000Z',
    next_billed_at: '2026-12-01T09:00:00.000000Z',
    paused_at: null,
    canceled_at: null,
    discount: null,
    collection_mode: 'automatic',
    billing_details: null,
    current_billing_period: {
      starts_at: '2026-11-01T09:00:00.000000Z',
      ends_at: '2026-12-01T09:00:00.000000Z',
    },
    billing_cycle: { interval: 'month', frequency: 1 },
    scheduled_change: null,
    management_urls: {
      update_payment_method: 'https://buyer-portal.paddle.com/subscriptions/sub/update-payment-method',
      cancel: 'https://buyer-portal.paddle.com/subscriptions/sub/cancel',
    },
    items: [
      {
        status: 'active',
        quantity: 1,
        recurring: true,
        created_at: '2026-11-01T09:00:00.000000Z',
        updated_at: '2026-11-01T09:00:00.000000Z',
        previously_billed_at: '2026-11-01T09:00:00.000000Z',
        next_billed_at: '2026-12-01T09:00:00.000000Z',
        trial_dates: null,
        price: price('pri_pro_monthly', '4900', true),
        product,
      },
    ],
    custom_data: { orgId },
    import_meta: null,
    ...overrides,
  };
}

/** The transaction entity (API and notification shape). */
export function transaction(overrides: Record<string, unknown> = {}) {
  const totals = {
    subtotal: '4900',
    discount: '0',
    tax: '0',
    total: '4900',
    credit: '0',
    credit_to_balance: '0',
    balance: '0',
    grand_total: '4900',
    grand_total_tax: '0',
    fee: null,
    earnings: null,
    currency_code: 'USD',
  };
  return {
    id: 'txn_01hv9a0000000000000000000b',
    status: 'completed',
    customer_id: customerId,
    address_id: 'add_01hv8wz9m1n2p3q4r5s6t7u8vw',
    business_id: null,
    custom_data: { orgId },
    currency_code: 'USD',
    origin: 'subscription_recurring',
    subscription_id: subscriptionId,
    invoice_id: 'inv_01hv9a0000000000000000000c',
    invoice_number: '325-10566',
    collection_mode: 'automatic',
    discount_id: null,
    billing_details: null,
    billing_period: { starts_at: '2026-12-01T09:00:00.000000Z', ends_at: '2027-01-01T09:00:00.000000Z' },
    items: [{ price: price('pri_pro_monthly', '4900', true), quantity: 1, proration: null }],
    details: {
      tax_rates_used: [],
      totals,
      adjusted_totals: null,
      payout_totals: null,
      adjusted_payout_totals: null,
      line_items: [],
    },
    payments: [
      {
        payment_attempt_id: 'a1b2c3d4-0000-4000-8000-000000000002',
        stored_payment_method_id: 'e5f6a7b8-0000-4000-8000-000000000003',
        payment_method_id: 'paymtd_01hv9a0000000000000000000d',
        amount: '4900',
        status: 'captured',
        error_code: null,
        method_details: null,
        created_at: '2026-12-01T09:00:05.000000Z',
        captured_at: '2026-12-01T09:00:06.000000Z',
      },
    ],
    checkout: { url: 'https://pay.example.org/checkout?_ptxn=txn_01hv9a0000000000000000000b' },
    created_at: '2026-12-01T09:00:00.000000Z',
    updated_at: '2026-12-01T09:00:06.000000Z',
    billed_at: '2026-12-01T09:00:00.000000Z',
    revised_at: null,
    ...overrides,
  };
}
