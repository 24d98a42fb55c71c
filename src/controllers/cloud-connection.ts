import type { AlertingClient } from '../cloud/alerting-client.ts';
import type { ManagementClient } from '../cloud/management-client.ts';
import type { Priority } from '../cloud/quota.ts';

/** The cloud as one reconcile sees it: clients for the resource's credentials, and the priority of its calls. */
export interface CloudConnection {
  management: ManagementClient;
  alerting: AlertingClient;
  /** `user` when the spec changed since the last reconcile, `poll` for drift checks and waits. */
  priority: Priority;
}
