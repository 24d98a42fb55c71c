import type { AlertingClient } from '../cloud/alerting-client.ts';
import type { ManagementClient } from '../cloud/management-client.ts';

/**
 * The cloud as one reconcile sees it: clients for the resource's credentials, bound to the reconcile's
 * priority: reads go as `user` when the spec changed since the last reconcile (or the object is being
 * deleted), as `poll` for drift checks and waits; writes always as `user`.
 */
export interface CloudConnection {
  management: ManagementClient;
  alerting: AlertingClient;
}
