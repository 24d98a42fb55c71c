import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { AlertingClient } from '../cloud/alerting-client.ts';
import type { CloudHooks } from '../cloud/hooks.ts';
import { systemClock } from '../clock.ts';
import { scopedClients, type CallScope } from '../cloud/cloud-client.ts';
import type { ClientOptions } from '../cloud/http.ts';
import { ManagementClient } from '../cloud/management-client.ts';
import { CloudSnapshots } from '../cloud/key-snapshots.ts';
import { QuotaRegistry, type QuotaLimit, type QuotaStart } from '../cloud/quota.ts';
import type { CloudApi, CloudConnection } from './connection.ts';
import { entryFor, hostRefusal, type AllowedHosts } from './api-hosts.ts';
import {
  alertingConfig,
  CREDENTIAL_KEYS,
  managementConfig,
  missingKeys,
  type CloudApiName,
} from './credentials.ts';
import {
  NAMESPACE_CREDENTIALS,
  ReconcileError,
  credentialsSecretNameOf,
  deriveDigestKey,
  oversizedSecret,
  type CloudUse,
  type CredentialsRead,
  type DigestKey,
  type SecretReader,
  type SecretSnapshot,
  type ManagedObject,
} from '../managed/index.ts';
import { RETRY_DELAYS } from '../base/retry-delays.ts';
import { REASON } from '../base/reasons.ts';

export interface SecretRef {
  namespace: string;
  name: string;
}

/** The clients a Secret's keys allow: each API's only when its keys are complete and its host allowed. */
interface CachedClients {
  fingerprint: string;
  management: ManagementClient | ReconcileError;
  alerting: AlertingClient | ReconcileError;
  /** The key's snapshots of the cloud's lists, beside its clients (and dropped with them on a rotation). */
  snapshots: CloudSnapshots;
}

const closeAll = (clients: CachedClients) => {
  clients.snapshots.close();
  return Promise.all(
    [clients.management, clients.alerting].map((client) =>
      client instanceof ReconcileError ? undefined : client.close(),
    ),
  );
};

/** How often budgets no Secret uses any more are looked at again while one is still busy. */
const QUOTA_SWEEP_MS = 5_000;

/** The URL key of each API in a credentials Secret. */
const URL_KEYS = { management: 'managementUrl', alerting: 'alertsUrl' } as const;

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
  private readonly quotas: QuotaRegistry;
  /** Looks again for budgets no Secret uses, while one was still busy. */
  private quotaSweep: NodeJS.Timeout | undefined;
  private readonly changeListeners: ((ids: readonly string[]) => void)[] = [];

  constructor(
    private readonly options: {
      /** The operator's Secret cache: credentials are read from the watch, not per reconcile. */
      secrets: SecretReader;
      /** `--credentials-secret`: used by resources without spec.credentialsRef nor a namespace default. */
      defaultSecret?: SecretRef;
      /**
       * Whether a Secret exists (default: its data is in `secrets`): a namespace's default credentials Secret
       * (`sluice-credentials`) is used while it exists, even before its data is read.
       */
      secretExists?(namespace: string, name: string): boolean;
      /** How to give credentials when a resource has none: the command's own flags (default: the operator's). */
      noCredentialsAdvice?: string;
      /**
       * Whether the resource is of a kind that signs in only with the credentials it states (an ApiKey):
       * spec.credentialsRef, else `defaultSecret`, never the namespace's default. Default: none is.
       */
      statesCredentials?(resource: ManagedObject): boolean;
      /** `--operator-credentials-namespaces`: the only namespaces whose resources may use `defaultSecret`. */
      defaultSecretNamespaces?: readonly string[];
      /**
       * `--allowed-api-hosts`: the hosts a resource's own credentials Secret may name. Default: the hosts of
       * `defaultSecret`'s URLs (none without one).
       */
      allowedApiHosts?: AllowedHosts;
      dispatcher: Dispatcher;
      hooks: CloudHooks;
      logger: Logger;
      /** Client-side budgets per key (false = unthrottled); the clients' defaults are the cloud's limits. */
      quotas?: { management?: QuotaLimit | false; alerting?: QuotaLimit | false };
      /** How a key's budget starts when it is first used (what a predecessor may have spent of it). */
      quotaStart?: (quotaKey: string) => QuotaStart;
      /** `--max-cloud-wait`: a call that would wait longer for quota is deferred (the key is requeued). */
      maxWaitMs?: number;
      /** Aborts every cloud call: the operator stopped leading, or its shutdown deadline passed. */
      signal?: AbortSignal;
    },
  ) {
    this.quotas = new QuotaRegistry(undefined, options.quotaStart);
  }

  /** Hears the cloud ids each snapshot's list shows added, changed or removed (the manager: their objects look again). */
  subscribe(listener: (ids: readonly string[]) => void): void {
    this.changeListeners.push(listener);
  }

  /**
   * The resource's clients, as one reconcile may use them (`CloudUse`): signed in with the `credentials` it
   * read (else read now). `freshnessMs` (default 0): how old a snapshot it may observe from (see
   * `CloudConnection`). With `writes`, the clients keep every write there instead of sending it (objects
   * sluice only observes). With `chain`, the calls are the reconcile's chain (see `CallChain`).
   */
  async connectionFor(
    resource: ManagedObject,
    use: Omit<CloudUse, 'freshnessMs'> & { freshnessMs?: number },
  ): Promise<CloudConnection> {
    const { priority, freshnessMs = 0, writes, chain } = use;
    const { secret, snapshot } = use.credentials ?? this.readCredentials(resource);
    if (secret instanceof ReconcileError) throw secret;
    const clients = this.clientsFor(secret, snapshot);
    // Reads follow the reconcile's priority, writes go as `user` (a poll's drift correction too), a create's as
    // `create`: no call names one.
    // Every call is made for the resource's namespace: a key's budget is shared fairly between namespaces. A
    // call deferred for quota keeps a claim of the resource's own, so a namespace's deferred calls queue up.
    const { namespace, name } = resource.metadata;
    const scope: CallScope = {
      readPriority: priority,
      writePriority: priority === 'create' ? 'create' : 'user',
      sharer: namespace,
      object: `${resource.kind} ${namespace}/${name}`,
      ...(chain ? { chain } : {}),
      ...(writes ? { writes } : {}),
    };
    const { management, alerting } = clients;
    const connection = scopedClients({ management, alerting }, scope);
    return Object.defineProperties(connection, {
      snapshots: { value: clients.snapshots, enumerable: true },
      freshnessMs: { value: freshnessMs, enumerable: true },
      // Read only by the kind that asks (an ApiKey): every other connection reads no second Secret.
      operatorKeySuffix: { get: () => this.operatorKeySuffix(), enumerable: true },
    }) as typeof connection & CloudConnection;
  }

  /** The last 4 letters of the operator's key id, when its Secret holds one. */
  private operatorKeySuffix(): string | undefined {
    const { defaultSecret, secrets } = this.options;
    const keyId = defaultSecret && secrets.get(defaultSecret.namespace, defaultSecret.name)?.data?.keyId;
    return keyId ? keyId.slice(-4) : undefined;
  }

  /**
   * The credentials the resource's calls sign in with, read once for a reconcile: their Secret (or why it may
   * use none) as the cache holds it now, and the organization it reaches (its `organizationId`), which an
   * object's cloud id is pinned to. What the reconcile checks, digests and connects with is this read.
   */
  readCredentials(resource: ManagedObject): CredentialsRead {
    const { objectSecret, secret } = this.credentialsSecretOf(resource);
    if (secret instanceof ReconcileError)
      return { secret, snapshot: undefined, organization: undefined, objectSecret };
    const snapshot = this.options.secrets.get(secret.namespace, secret.name);
    return { secret, snapshot, organization: snapshot?.data.organizationId, objectSecret };
  }

  /**
   * The key for status digests of the Secrets a resource references, derived from the secret of the
   * credentials it is reconciled with (as the reconcile read them, else read now): whoever can read that
   * Secret can already act with the credentials.
   */
  secretDigestKey(resource: ManagedObject, credentials = this.readCredentials(resource)): DigestKey {
    const { secret: ref, snapshot } = credentials;
    if (ref instanceof ReconcileError) throw ref;
    const data = snapshot?.data;
    const secret = data?.keySecret ?? data?.alertsToken;
    if (!secret) {
      throw ReconcileError.terminal(
        REASON.CredentialsMissing,
        `Secret ${ref.namespace}/${ref.name} ${data ? 'has no key keySecret or alertsToken' : 'not found'}`,
        RETRY_DELAYS.credentials,
      );
    }
    return deriveDigestKey(secret);
  }

  /**
   * Whether the resource's credentials Secret (as the reconcile read it, else read now) is credentials: it
   * holds every key of one API, at an allowed host. Anything else makes no cloud call, so it needs no keeping.
   */
  holdsCredentials(resource: ManagedObject, credentials = this.readCredentials(resource)): boolean {
    const { secret, snapshot } = credentials;
    if (secret instanceof ReconcileError) return false;
    try {
      const { management, alerting } = this.clientsFor(secret, snapshot);
      return !(management instanceof ReconcileError) || !(alerting instanceof ReconcileError);
    } catch {
      return false;
    }
  }

  /** The credentials Secret a resource is reconciled with, or undefined when it may use none. */
  credentialsOf(resource: ManagedObject): SecretRef | undefined {
    const { secret } = this.credentialsSecretOf(resource);
    return secret instanceof ReconcileError ? undefined : secret;
  }

  /**
   * No object uses this Secret any more: its clients and snapshots go, and so do the budgets of keys no other
   * Secret's clients use (once what they spent no longer counts). A later use builds them again.
   */
  release(ref: SecretRef): void {
    const key = `${ref.namespace}/${ref.name}`;
    const cached = this.cache.get(key);
    if (!cached) return;
    this.cache.delete(key);
    void closeAll(cached);
    this.dropUnusedQuotas();
  }

  /**
   * The budget key (`quotaKey`) the Secret's calls of `api` spend, or undefined (no usable client, or the
   * API unthrottled): Secrets holding one key share it, and the drift planner shares it between them.
   */
  budgetKeyOf(ref: SecretRef, api: CloudApi): string | undefined {
    try {
      const client = this.clientsFor(ref)[api];
      return client instanceof ReconcileError ? undefined : client.quota?.key;
    } catch {
      return undefined;
    }
  }

  /** The credentials Secrets (`namespace/name`) whose clients are kept. */
  credentialsInUse(): string[] {
    return [...this.cache.keys()].sort();
  }

  /** How old every snapshot of every credentials Secret in use is, by Secret and kind of list. */
  snapshotAges(): { credentials: string; list: string; ageSeconds: number }[] {
    return [...this.cache].flatMap(([credentials, clients]) =>
      clients.snapshots.ages().map(({ list, ageMs }) => ({ credentials, list, ageSeconds: ageMs / 1000 })),
    );
  }

  async close(): Promise<void> {
    clearTimeout(this.quotaSweep);
    await Promise.all([...this.cache.values()].map(closeAll));
    this.cache.clear();
  }

  /** Drops the budgets of keys no kept client uses; one still busy is looked at again a window later. */
  private dropUnusedQuotas(): void {
    clearTimeout(this.quotaSweep);
    const used = new Set(
      [...this.cache.values()].flatMap(({ management, alerting }) =>
        [management, alerting].flatMap((client) =>
          client instanceof ReconcileError || !client.quota ? [] : [client.quota.key],
        ),
      ),
    );
    const busy = this.quotas
      .keys()
      .filter((key) => !used.has(key))
      .filter((key) => !this.quotas.dropIfIdle(key));
    if (busy.length === 0) return;
    this.quotaSweep = setTimeout(() => this.dropUnusedQuotas(), QUOTA_SWEEP_MS);
    this.quotaSweep.unref();
  }

  /**
   * The credentials Secret a resource is reconciled with, or why it may use none, each looked up once; and
   * `objectSecret`, the Secret of its namespace it signs in with, by name (undefined: the operator's, or none).
   */
  private credentialsSecretOf(resource: ManagedObject): {
    objectSecret: string | undefined;
    secret: SecretRef | ReconcileError;
  } {
    const { secrets, secretExists = (ns, name) => secrets.get(ns, name) !== undefined } = this.options;
    const stated = this.options.statesCredentials?.(resource) ?? false;
    const objectSecret = credentialsSecretNameOf(resource, secretExists, stated);
    return { objectSecret, secret: this.secretRefOf(resource, stated, objectSecret) };
  }

  /**
   * The credentials Secret a resource is reconciled with, or why it may use none. `stated`: its kind signs
   * in only with the credentials it states; `own`: the Secret of its namespace it signs in with (none: the
   * operator's).
   */
  private secretRefOf(
    resource: ManagedObject,
    stated: boolean,
    own: string | undefined,
  ): SecretRef | ReconcileError {
    const { namespace } = resource.metadata;
    if (own) return { namespace, name: own };
    const { defaultSecret, defaultSecretNamespaces: namespaces } = this.options;
    // A kind that states its credentials is never pointed at the namespace's default, which it never uses.
    const instead = stated
      ? 'set spec.credentialsRef to a Secret of this namespace holding a key that may manage keys (this kind never uses the namespace default)'
      : `set spec.credentialsRef to a Secret of this namespace, or create its default credentials Secret ${NAMESPACE_CREDENTIALS}`;
    if (defaultSecret && namespaces && !namespaces.includes(namespace)) {
      return ReconcileError.terminal(
        REASON.OperatorCredentialsNotAllowed,
        `the operator's credentials may be used only in namespaces ${namespaces.join(', ')} ` +
          `(--operator-credentials-namespaces), not in ${namespace}: ${instead}`,
        RETRY_DELAYS.credentials,
      );
    }
    if (defaultSecret) return defaultSecret;
    const where = stated
      ? 'set spec.credentialsRef'
      : `set spec.credentialsRef, create the namespace's Secret ${NAMESPACE_CREDENTIALS}`;
    return ReconcileError.terminal(
      REASON.CredentialsMissing,
      `no credentials: ${where}, or ${this.options.noCredentialsAdvice ?? 'start the operator with --credentials-secret'}`,
      RETRY_DELAYS.credentials,
    );
  }

  /** The clients of Secret `ref` as `secret` holds it (by default, as the cache holds it now). */
  private clientsFor(
    ref: SecretRef,
    secret: SecretSnapshot | undefined = this.options.secrets.get(ref.namespace, ref.name),
  ): CachedClients {
    const data = secret?.data;
    if (!data) {
      throw ReconcileError.terminal(
        REASON.CredentialsMissing,
        `Secret ${ref.namespace}/${ref.name} not found`,
        RETRY_DELAYS.credentials,
      );
    }
    const oversized = oversizedSecret(
      secret,
      `Secret ${ref.namespace}/${ref.name}`,
      Object.values(CREDENTIAL_KEYS).flat(),
    );
    if (oversized) throw oversized;
    const cacheKey = `${ref.namespace}/${ref.name}`;
    // The allow-list may change without this Secret changing (it follows the operator's Secret by default).
    const refusals = {
      management: this.hostRefusal(ref, data, 'management'),
      alerting: this.hostRefusal(ref, data, 'alerting'),
    };
    const fingerprint = createHash('sha256')
      .update(
        JSON.stringify(
          Object.values(CREDENTIAL_KEYS)
            .flat()
            .map((key) => data[key] ?? ''),
        ),
      )
      .update(JSON.stringify(refusals))
      .digest('hex');
    const cached = this.cache.get(cacheKey);
    if (cached?.fingerprint === fingerprint) return cached;
    if (cached) void closeAll(cached);

    const { quotas = {}, maxWaitMs, signal } = this.options;
    const { hooks } = this.options;
    const clientOptions: ClientOptions = {
      dispatcher: this.options.dispatcher,
      // Every call names the Secret whose budget it spends: metrics count per Secret, never by key value.
      hooks: {
        ...hooks,
        onRequest: (event) => hooks.onRequest?.({ ...event, credentials: cacheKey }),
        onQuotaWait: (event) => hooks.onQuotaWait?.({ ...event, credentials: cacheKey }),
      },
      logger: this.options.logger,
      quotaRegistry: this.quotas,
      ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
      ...(signal ? { signal } : {}),
    };
    // Each API gets its own budget; left unset, the client keeps the API's published limit.
    const withQuota = (quota: QuotaLimit | false | undefined): ClientOptions =>
      quota === undefined ? clientOptions : { ...clientOptions, quota };
    const refused = (api: CloudApiName) => {
      const missing = missingKeys(data, api);
      if (missing.length > 0) {
        return ReconcileError.terminal(
          REASON.CredentialsMissing,
          `Secret ${cacheKey} has no key ${missing.join(', ')} (for the ${api} API)`,
          RETRY_DELAYS.credentials,
        );
      }
      const refusal = refusals[api];
      return refusal
        ? ReconcileError.terminal(REASON.ApiHostNotAllowed, refusal, RETRY_DELAYS.credentials)
        : undefined;
    };
    const management = refused('management');
    const alerting = refused('alerting');
    const clients: Omit<CachedClients, 'snapshots'> = {
      fingerprint,
      management:
        management ??
        new ManagementClient(managementConfig(data), withQuota(quotas.management)).onBehalfOf(ref.namespace),
      alerting:
        alerting ??
        new AlertingClient(alertingConfig(data), withQuota(quotas.alerting)).onBehalfOf(ref.namespace),
    };
    // The Secret's shared lists are made for its namespace; each resource's own calls for the resource's.
    const snapshots = new CloudSnapshots({
      // A list with keys that make no client fails as a call would: CredentialsMissing, naming the key.
      management: clients.management,
      alerting: clients.alerting,
      clock: systemClock,
      onChange: (ids) => {
        for (const listener of this.changeListeners) listener(ids);
      },
    });
    const built: CachedClients = { ...clients, snapshots };
    this.cache.set(cacheKey, built);
    return built;
  }

  /**
   * Why the operator may not call the API host a resource's own Secret names, or undefined. The operator's
   * Secret is the administrator's, so it is trusted; every other Secret may name only the allowed hosts.
   */
  private hostRefusal(
    ref: SecretRef,
    data: Record<string, string>,
    api: keyof typeof URL_KEYS,
  ): string | undefined {
    const key = URL_KEYS[api];
    const url = data[key];
    const operators = this.options.defaultSecret;
    if (!url || (operators?.namespace === ref.namespace && operators.name === ref.name)) return undefined;
    const allowed = this.allowedHosts();
    const refusal = hostRefusal(url, allowed);
    if (refusal === undefined) return undefined;
    const listed = allowed.length > 0 ? allowed.join(', ') : 'none';
    return `Secret ${ref.namespace}/${ref.name} key ${key} ${refusal} (allowed: ${listed}; see --allowed-api-hosts)`;
  }

  /** `--allowed-api-hosts`, else the hosts of the operator's own Secret as it is now. */
  private allowedHosts(): AllowedHosts {
    const { allowedApiHosts, defaultSecret } = this.options;
    if (allowedApiHosts) return allowedApiHosts;
    const data = defaultSecret && this.options.secrets.get(defaultSecret.namespace, defaultSecret.name)?.data;
    const hosts = Object.values(URL_KEYS).map((key) => (data?.[key] ? entryFor(data[key]) : undefined));
    return [...new Set(hosts.filter((host) => host !== undefined))];
  }
}
