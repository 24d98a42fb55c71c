import type { CloudConnection } from '../../cloud-access/connection.ts';
import type { ConnectContext } from '../../managed/index.ts';

/**
 * What a kind's client is made with: the reconcile's connect context, kept whole, so the client derives
 * what it needs (a Secret's value, a reference, the owner record) where it uses it, from one place.
 */
export abstract class ConnectedClient {
  /** The cloud to call, with the credentials this reconcile read (a field: reading it calls nothing). */
  protected readonly cloud: CloudConnection;

  constructor(protected readonly context: ConnectContext<CloudConnection>) {
    this.cloud = context.cloud;
  }
}
