import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { AlertingClient } from '../cloud/alerting-client.ts';
import type { CloudHooks } from '../cloud/hooks.ts';
import type { ClientOptions } from '../cloud/http.ts';
import { ManagementClient } from '../cloud/management-client.ts';
import { QuotaRegistry, type Priority, type QuotaLimit } from '../cloud/quota.ts';
import type { CloudConnection } from '../controllers/cloud-connection.ts';
import { ReconcileError } from '../runtime/managed/errors.ts';
import { deriveDigestKey, type DigestKey } from '../runtime/managed/secret-digests.ts';
import type { SecretReader } from '../runtime/managed/secret-references.ts';
import type { ManagedObject } from '../runtime/managed/types.ts';

/** The keys of a credentials Secret (the operator's, or a resource's own via spec.credentialsRef). */
export const MANAGEMENT_KEYS = ['organizationId', 'keyId', 'keySecret', 'managementUrl'] as const;
export const ALERTING_KEYS = ['alertsUrl', 'alertsToken'] as const;

/** A missing Secret or key is the user's to fix; retrying sooner than this only adds noise. */
const CREDENTIALS_RETRY_MS = 10_000;

export interface SecretRef {
  namespace: string;
  name: string;
}

/** The clients a Secret's keys allow: each API's only when all of its keys are present, else what is missing. */
interface CachedClients {
  fingerprint: string;
  management: ManagementClient | string[];
  alerting: AlertingClient | string[];
}

const closeAll = (clients: CachedClients) =>
  Promise.all(
    [clients.management, clients.alerting].map((client) =>
      Array.isArray(client) ? undefined : client.close(),
    ),
  );

/**
 * Turns credentials Secrets into cloud clients. Clients are kept per Secret and rebuilt when its values
 * change (a rotated key), so every resource using one key shares one client and so one quota scheduler.
 */
export class CloudClients {
  private readonly cache = new Map<string, CachedClients>();
  /**
   * This operator's budgets, one per API key or token: shared by the clients of every Secret with that key
   * (and kept across a rotation), and set by this operator's flags, whatever else in the process used the key.
   */
  private readonly quotas = new QuotaRegistry();

  constructor(
    private readonly options: {
      /** The operator's Secret cache: credentials are read from the watch, not per reconcile. */
      secrets: SecretReader;
      /** `--credentials-secret`: used by resources without spec.credentialsRef. */
      defaultSecret?: SecretRef;
      dispatcher: Dispatcher;
      hooks: CloudHooks;
      logger: Logger;
      /** Client-side budgets per key (false = unthrottled); the clients' defaults are the cloud's limits. */
      quotas?: { management?: QuotaLimit | false; alerting?: QuotaLimit | false };
      /** `--max-cloud-wait`: a call that would wait longer for quota is deferred (the key is requeued). */
      maxWaitMs?: number;
      /** Aborts every cloud call: the operator stopped leading, or its shutdown deadline passed. */
      signal?: AbortSignal;
    },
  ) {}

  async connectionFor(resource: ManagedObject, priority: Priority): Promise<CloudConnection> {
    const ref = this.secretRefOf(resource);
    const clients = this.clientsFor(ref);
    // Each API's keys are needed only by the kinds that call it: an Alert's Secret may hold only the alerting keys.
    const usable = <C>(client: C | string[], api: string): C => {
      if (!Array.isArray(client)) return client;
      throw new ReconcileError(
        'CredentialsMissing',
        `Secret ${ref.namespace}/${ref.name} has no key ${client.join(', ')} (for the ${api} API)`,
        CREDENTIALS_RETRY_MS,
      );
    };
    return {
      get management(): ManagementClient {
        return usable(clients.management, 'management');
      },
      get alerting(): AlertingClient {
        return usable(clients.alerting, 'alerting');
      },
      priority,
    };
  }

  /**
   * The key for status digests of the Secrets a resource references, derived from the secret of the
   * credentials it is reconciled with: whoever can read that Secret can already act with the credentials.
   */
  secretDigestKey(resource: ManagedObject): DigestKey {
    const ref = this.secretRefOf(resource);
    const data = this.options.secrets.get(ref.namespace, ref.name)?.data ?? {};
    const secret = data.keySecret ?? data.alertsToken;
    if (!secret) {
      throw new ReconcileError(
        'CredentialsMissing',
        `Secret ${ref.namespace}/${ref.name} has no key keySecret or alertsToken`,
        CREDENTIALS_RETRY_MS,
      );
    }
    return deriveDigestKey(secret);
  }

  async close(): Promise<void> {
    await Promise.all([...this.cache.values()].map(closeAll));
    this.cache.clear();
  }

  private secretRefOf(resource: ManagedObject): SecretRef {
    const own = resource.spec.credentialsRef?.name;
    if (own) return { namespace: resource.metadata.namespace, name: own };
    if (this.options.defaultSecret) return this.options.defaultSecret;
    throw new ReconcileError(
      'CredentialsMissing',
      'no credentials: set spec.credentialsRef or start the operator with --credentials-secret',
      CREDENTIALS_RETRY_MS,
    );
  }

  private clientsFor(ref: SecretRef): CachedClients {
    const data = this.options.secrets.get(ref.namespace, ref.name)?.data;
    if (!data) {
      throw new ReconcileError(
        'CredentialsMissing',
        `Secret ${ref.namespace}/${ref.name} not found`,
        CREDENTIALS_RETRY_MS,
      );
    }
    const cacheKey = `${ref.namespace}/${ref.name}`;
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([...MANAGEMENT_KEYS, ...ALERTING_KEYS].map((key) => data[key] ?? '')))
      .digest('hex');
    const cached = this.cache.get(cacheKey);
    if (cached?.fingerprint === fingerprint) return cached;
    if (cached) void closeAll(cached);

    const { quotas = {}, maxWaitMs, signal } = this.options;
    const clientOptions: ClientOptions = {
      dispatcher: this.options.dispatcher,
      hooks: this.options.hooks,
      logger: this.options.logger,
      quotaRegistry: this.quotas,
      ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
      ...(signal ? { signal } : {}),
    };
    // Each API gets its own budget; left unset, the client keeps the API's published limit.
    const withQuota = (quota: QuotaLimit | false | undefined): ClientOptions =>
      quota === undefined ? clientOptions : { ...clientOptions, quota };
    const missing = (keys: readonly string[]) => keys.filter((key) => !data[key]);
    const management = missing(MANAGEMENT_KEYS);
    const alerting = missing(ALERTING_KEYS);
    const clients: CachedClients = {
      fingerprint,
      management:
        management.length > 0
          ? management
          : new ManagementClient(
              {
                baseUrl: data.managementUrl!,
                organizationId: data.organizationId!,
                keyId: data.keyId!,
                keySecret: data.keySecret!,
              },
              withQuota(quotas.management),
            ),
      alerting:
        alerting.length > 0
          ? alerting
          : new AlertingClient(
              { baseUrl: data.alertsUrl!, token: data.alertsToken! },
              withQuota(quotas.alerting),
            ),
    };
    this.cache.set(cacheKey, clients);
    return clients;
  }
}
