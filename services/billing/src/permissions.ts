// The owner-facing methods and the permission a member's role needs for each (services/common/src/roles.ts,
// docs/adr/0030-workspaces.md). A gateway call to one of them without a role that holds it is
// refused before it runs. Not listed: the credit holds and their reconciliation (chat's), the public options, the test-mode
// checkout and portal pages (keyed by their session), and GetAccount, which the gateway also asks
// for the signed-in person's own plan on sign-in, before any workspace is chosen.
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { methodPermissions } from '@parley/common/service-auth.ts';

export const billingPermissions = methodPermissions(BillingService, {
  GetUsageReport: 'workspace:read',
  ListUsageRecords: 'workspace:read',
  CreateCustomer: 'billing:manage',
  CreateCheckoutSession: 'billing:manage',
  CreatePortalSession: 'billing:manage',
  ExportOwnerData: 'billing:manage',
  // The workspace's own settings (docs/adr/0059-retention-in-every-service.md): owners and admins, as chat's windows.
  GetUsageRetention: 'members:manage',
  SetUsageRetention: 'members:manage',
  PreviewUsageRetention: 'members:manage',
});

/** The methods no role is asked for (see above); every method is in one list or the other. */
export const billingUnchecked: readonly string[] = [
  'GetAccount',
  'GetTestCheckoutSession',
  'ReserveCredit',
  'ReleaseCredit',
  'ListExpiredHolds',
  'GetBillingOptions',
  'GetTestPortalSession',
];
