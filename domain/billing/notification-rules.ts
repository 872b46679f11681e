// Which subscription events notify whom (the billing slice's notification rules): a failed payment, a workspace
// made read-only, a payment recovered. Contributed to the notifications read model by api/billing/slice.ts.
import { defineNotificationRules, type NotificationIntent } from '../notifications/rules.js';
import { subscriptionEventCodec } from './event-codec.js';

const billingHref = (orgId: string) => `/v1/orgs/${orgId}/billing`;

export const billingNotificationRules = defineNotificationRules(
  subscriptionEventCodec,
  ['SubscriptionPaymentFailed', 'SubscriptionAccessRestricted', 'SubscriptionRecovered'],
  (event): NotificationIntent[] => {
    switch (event.type) {
      case 'SubscriptionPaymentFailed': {
        const d = event.data;
        return [
          {
            orgId: d.orgId,
            tier: 'action_required',
            type: 'payment_failed',
            title: 'A payment for this workspace failed',
            body: `Update the payment method by ${d.graceEndsAt}; after that the workspace becomes read-only.`,
            href: billingHref(d.orgId),
            recipients: { kind: 'permission', permission: 'billing:manage', except: null },
            dedupeKey: `payment_failed:${d.providerEventId}`,
            metadata: { pastDueSince: d.pastDueSince, graceEndsAt: d.graceEndsAt },
            createdAt: d.at,
          },
        ];
      }
      case 'SubscriptionAccessRestricted': {
        const d = event.data;
        // Everyone's writes are refused from now on, so everyone is told why.
        return [
          {
            orgId: d.orgId,
            tier: 'action_required',
            type: 'workspace_read_only',
            title: 'This workspace is read-only until its payment is fixed',
            body: 'Everything can still be read; changes and new posts wait until the overdue payment is made.',
            href: billingHref(d.orgId),
            recipients: { kind: 'everyone' },
            dedupeKey: `workspace_read_only:${d.at}`,
            metadata: { since: d.at },
            createdAt: d.at,
          },
        ];
      }
      case 'SubscriptionRecovered': {
        const d = event.data;
        return [
          {
            orgId: d.orgId,
            tier: 'routine',
            type: 'payment_recovered',
            title: 'The payment went through; the workspace is fully usable again',
            body: null,
            href: billingHref(d.orgId),
            recipients: { kind: 'permission', permission: 'billing:manage', except: null },
            dedupeKey: `payment_recovered:${d.providerEventId}`,
            metadata: {},
            createdAt: d.at,
          },
        ];
      }
    }
  },
);
