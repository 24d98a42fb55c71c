import type { AlertingClient } from '../cloud/alerting-client.ts';
import type { ManagementClient } from '../cloud/management-client.ts';
import type { CloudSnapshots } from '../cloud/key-snapshots.ts';

/**
 * The cloud's APIs, by the names a kind's drift reads say which API pays for a read: the operator gives the
 * drift planner a quota budget under each name (the runtime carries them and knows none).
 */
export type CloudApi = 'management' | 'alerting';

/**
 * The cloud as one reconcile sees it: clients for the resource's credentials, bound to the reconcile's
 * priority: reads go as `user` when the spec changed since the last reconcile (or the object is being
 * deleted), as `poll` for drift checks and waits; writes always as `user`.
 */
export interface CloudConnection {
  management: ManagementClient;
  alerting: AlertingClient;
  /** The key's shared snapshots of the cloud's lists: observing reads them instead of one GET per object. */
  snapshots: CloudSnapshots;
  /**
   * How old a snapshot this reconcile may observe from (ms), by what the object is doing: waiting for the
   * cloud or just changed by its user, the poll interval; a drift check, its sync interval.
   */
  freshnessMs: number;
  /**
   * The last 4 letters of the operator's own key id (`--credentials-secret`), if it has one: a key with this
   * suffix is never written to by an object, whichever credentials the object uses.
   */
  operatorKeySuffix?: string;
}
