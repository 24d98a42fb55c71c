import { parseOwnerRecord, ANNOTATIONS, type Owner, type FieldPolicy } from '../managed/index.ts';
import { noteOwner } from '../kinds/alert/mapping.ts';
import { OWNER_TAG } from '../kinds/shared/service-tags.ts';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { API_VERSION } from '../kinds/shared/common.ts';
import type { AlertingClient } from '../cloud/alerting-client.ts';
import { ApiError, isNotFound } from '../cloud/errors.ts';
import type { ManagementClient } from '../cloud/management-client.ts';
import type { Alert } from '../cloud/schemas/alert.ts';
import { describeIssue } from '../cloud/schemas/issues.ts';
import type { Pipe } from '../cloud/schemas/pipe.ts';
import type { QueryEndpoint } from '../cloud/schemas/query-endpoint.ts';
import type { ReversePrivateEndpoint } from '../cloud/schemas/reverse-private-endpoint.ts';
import type { Service } from '../cloud/schemas/service.ts';
import { exportAlert } from '../kinds/alert/mapping.ts';
import { exportService, type ExportedSurroundings } from '../kinds/database-service/mapping.ts';
import { exportPipe, type ExportedSecret } from '../kinds/pipe/mapping.ts';
import { exportQueryEndpoint } from '../kinds/query-endpoint/mapping.ts';
import { CREDENTIALS_KEYS, exportApiKey } from '../kinds/api-key/mapping.ts';
import { exportReversePrivateEndpoint } from '../kinds/reverse-private-endpoint/mapping.ts';
import { kindNamed } from '../kinds/index.ts';
import { mapConcurrently } from '../base/map-concurrently.ts';
import { fieldPolicyFor } from './field-policy.ts';
import type { ManagedBy } from './managed-in-cluster.ts';
import { NameRegistry } from './names.ts';

export interface ExportOptions {
  management: ManagementClient;
  /** Without it alerts are not exported (they live in the alerting API). */
  alerting?: AlertingClient;
  /** metadata.namespace of every manifest; without it kubectl's current namespace applies. */
  namespace?: string;
  kinds: ReadonlySet<string>;
  /** Only services carrying every tag, and what lives in them. */
  tags?: ReadonlyArray<{ key: string; value: string }>;
  /** How many services are read at once; the quota scheduler paces the calls whatever this is. */
  concurrency?: number;
  /** One line per step, for stderr. */
  progress?: (line: string) => void;
  /** Manifests with `managementPolicy: Observe`: sluice only reads what they adopt until switched to Full. */
  observe?: boolean;
  /** Written into each manifest for the fields its kind has (`fieldPolicyFor`). */
  fieldPolicy?: FieldPolicy;
  /**
   * Only the objects recorded in the cloud as this cluster name's (services by their owner tag, with what
   * lives in them; alerts by their owner note), written back as the objects they were: their namespace and
   * name, taken back by the owner record (`sluice.dev/owner-cluster`), not by id.
   */
  ownedBy?: string;
  /**
   * Which object of the cluster already manages a cloud object: those it names are left out (an applied copy
   * would be refused as `AlreadyManaged`), listed in `leftOut`.
   */
  managedBy?: ManagedBy;
  /** Written as `spec.credentialsRef` into every manifest: the Secret of cloud credentials it uses. */
  credentialsRef?: string;
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations: Record<string, string> };
  spec: Record<string, unknown>;
}

/** A Secret the manifests reference and the export cannot fill: the user creates it before applying. */
export interface SecretToCreate {
  name: string;
  keys: readonly string[];
  /** `Pipe orders (source.kafka.credentialsSecretRef)`. */
  usedBy: string;
}

/** A cloud object no manifest can express as it is. */
export interface Skipped {
  kind: string;
  id: string;
  cloudName: string;
  reason: string;
}

/** A cloud object left out because an object of the cluster manages it already. */
export interface LeftOut {
  kind: string;
  id: string;
  cloudName: string;
  /** `DatabaseService team-a/orders`. */
  managedBy: string;
}

export interface ExportResult {
  manifests: Manifest[];
  secrets: SecretToCreate[];
  skipped: Skipped[];
  leftOut: LeftOut[];
  /** Fields left out because they hold a credential (`Pipe orders: extraSettings.strings.sasl_password`). */
  withheld: string[];
  /** Cloud requests made. */
  calls: number;
}

/** What one service holds, as read from the cloud. */
interface ServiceContents {
  service: Service;
  pipes: Pipe[];
  endpoints: ReversePrivateEndpoint[];
  queryEndpoint?: QueryEndpoint;
  /** Its backup configuration, scaling schedule and upgrade window, read when services are exported. */
  around?: ExportedSurroundings;
}

type Mapped = { spec: Record<string, unknown> } | { unexpressible: string };

/**
 * Reads the organization through the given clients (so through their quota scheduler) and writes one
 * manifest per object that adopts it unchanged: `sluice.dev/external-id`, `deletionPolicy: Orphan` (and with
 * `observe`, `managementPolicy: Observe`), the spec
 * the kind's own export mapping gives, references by name between exported objects. Each spec is checked
 * against its kind's schema; one that does not fit whole is skipped with the reason, never emitted in part.
 */
export async function exportOrganization(options: ExportOptions): Promise<ExportResult> {
  const { kinds, progress = () => {} } = options;
  const result: ExportResult = {
    manifests: [],
    secrets: [],
    skipped: [],
    leftOut: [],
    withheld: [],
    calls: 0,
  };
  const call = <T>(request: Promise<T>) => {
    result.calls++;
    return request;
  };
  const names = new NameRegistry();
  /** Emits the manifest named `name`, or records why the object cannot be expressed; true when emitted. */
  /** The owner record of an object `ownedBy` exports: where and under what name it goes back. */
  const recordOf = new Map<string, Owner>();
  /** The namespace of the owned service an exported child lives in. */
  const namespaceOf = new Map<string, string>();
  const emit = (kind: string, name: string, cloudName: string, id: string, mapped: Mapped) => {
    const checked = 'spec' in mapped ? checkSpec(kind, mapped.spec) : mapped;
    if (!('spec' in checked)) {
      result.skipped.push({ kind, id, cloudName, reason: checked.unexpressible });
      progress(`skipped ${kind} ${JSON.stringify(cloudName)} (${id}): ${checked.unexpressible}`);
      return false;
    }
    const fieldPolicy = options.fieldPolicy && fieldPolicyFor(kind, options.fieldPolicy);
    const record = recordOf.get(id);
    const namespace = record?.namespace ?? namespaceOf.get(id) ?? options.namespace;
    result.manifests.push({
      apiVersion: API_VERSION,
      kind,
      metadata: {
        name: record ? record.name : name,
        ...(namespace ? { namespace } : {}),
        annotations: record
          ? { [ANNOTATIONS.ownerCluster]: record.cluster }
          : { [ANNOTATIONS.externalId]: id },
      },
      spec: {
        ...checked.spec,
        ...(fieldPolicy ? { fieldPolicy } : {}),
        ...(options.credentialsRef ? { credentialsRef: { name: options.credentialsRef } } : {}),
        deletionPolicy: 'Orphan',
        ...(options.observe ? { managementPolicy: 'Observe' } : {}),
      },
    });
    return true;
  };
  const named = (
    kind: string,
    cloudName: string,
    id: string,
    fallback: string,
    map: (name: string) => Mapped,
  ) => {
    const managedBy = options.managedBy?.(kind, id);
    if (managedBy) {
      result.leftOut.push({ kind, id, cloudName, managedBy });
      return undefined;
    }
    const name = names.take(kind, cloudName, fallback);
    return emit(kind, name, cloudName, id, map(name)) ? name : undefined;
  };

  const scoped =
    kinds.has('DatabaseService') ||
    kinds.has('Pipe') ||
    kinds.has('ReversePrivateEndpoint') ||
    kinds.has('QueryEndpoint');
  const services = scoped
    ? await call(options.management.listServices(options.tags ? { tags: options.tags } : {}))
    : [];
  if (options.ownedBy !== undefined) {
    const owned = services.filter((service) => {
      const record = parseOwnerRecord(service.tags?.find((t) => t.key === OWNER_TAG)?.value);
      if (!record || record.cluster !== options.ownedBy || record.name.startsWith('sha256-')) return false;
      recordOf.set(service.id, record);
      return true;
    });
    services.splice(0, services.length, ...owned);
  }
  services.sort(byNameThenId((s) => s.name));
  progress(`listed ${services.length} service${services.length === 1 ? '' : 's'}`);
  const contents = await readServices(options, services, (request) => call(request), progress);

  for (const { service, pipes, endpoints, queryEndpoint, around } of contents) {
    const serviceName = kinds.has('DatabaseService')
      ? named('DatabaseService', service.name, service.id, 'service', () => exportService(service, around))
      : undefined;
    // A service left out (or not exported) is named by id: its manifest is not among these.
    const owner = serviceName ? { serviceRef: { name: serviceName } } : { serviceId: service.id };
    const withOwner = (mapped: Mapped): Mapped =>
      'spec' in mapped ? { spec: { ...owner, ...mapped.spec } } : mapped;

    // What lives in an owned service goes back into the service's namespace, adopted by id.
    const serviceNamespace = recordOf.get(service.id)?.namespace;
    for (const child of [...pipes, ...endpoints, ...(queryEndpoint ? [queryEndpoint] : [])]) {
      if (serviceNamespace) namespaceOf.set(child.id, serviceNamespace);
    }
    const endpointNames = new Map<string, string>();
    for (const endpoint of kinds.has('ReversePrivateEndpoint') ? endpoints : []) {
      const cloudName = endpoint.description ?? '';
      const name = named('ReversePrivateEndpoint', cloudName, endpoint.id, 'endpoint', () =>
        withOwner(exportReversePrivateEndpoint(endpoint)),
      );
      if (name) endpointNames.set(endpoint.id, name);
    }
    for (const pipe of kinds.has('Pipe') ? pipes : []) {
      let secrets: ExportedSecret[] = [];
      let withheld: string[] = [];
      const name = named('Pipe', pipe.name, pipe.id, 'pipe', (pipeName) => {
        const mapped = exportPipe(
          pipe,
          (purpose) => `${pipeName}-${purpose}`,
          (id) => endpointNames.get(id),
        );
        if ('secrets' in mapped) ({ secrets, withheld } = mapped);
        return withOwner(mapped);
      });
      for (const field of name ? withheld : []) result.withheld.push(`Pipe ${name}: ${field}`);
      for (const secret of name ? secrets : []) {
        result.secrets.push({
          name: secret.name,
          keys: secret.keys,
          usedBy: `Pipe ${name} (${secret.field})`,
        });
      }
    }
    if (kinds.has('QueryEndpoint') && queryEndpoint) {
      named('QueryEndpoint', serviceName ?? service.name, queryEndpoint.id, 'query-endpoint', () =>
        withOwner(exportQueryEndpoint(queryEndpoint)),
      );
    }
  }

  // Keys carry no tags or owner record: exported only for a whole organization, never their secrets. The
  // key the export itself uses is left out (its Secret exists already, outside sluice).
  if (kinds.has('ApiKey') && options.tags === undefined && options.ownedBy === undefined) {
    const management = options.management;
    const keys = (await call(management.listApiKeys())).filter(
      (key) => !management.usesKeySuffix(key.keySuffix),
    );
    keys.sort(byNameThenId((k) => k.name));
    progress(`listed ${keys.length} API key${keys.length === 1 ? '' : 's'}`);
    for (const key of keys) {
      let secretName = '';
      const name = named('ApiKey', key.name, key.id, 'api-key', (keyName) => {
        secretName = `${keyName}-credentials`;
        return exportApiKey(key, secretName);
      });
      if (name) {
        result.secrets.push({
          name: secretName,
          keys: CREDENTIALS_KEYS.filter((k) => k === 'keyId' || k === 'keySecret'),
          usedBy: `ApiKey ${name} (spec.credentialsSecret: the key's secret is never exported; sluice writes organizationId and managementUrl into this Secret, keyId and keySecret must be provided, or the key rotated)`,
        });
      }
    }
  }

  if (kinds.has('Alert')) {
    if (!options.alerting) progress('alerts not exported: no alerting token (alertsUrl and alertsToken)');
    else if (options.tags) progress('alerts not exported: they carry no tags for --selector to match');
    else {
      const listed: Alert[] = await call(options.alerting.listAlerts());
      const alerts = listed.filter((alert) => {
        if (options.ownedBy === undefined) return true;
        const record = parseOwnerRecord(noteOwner(alert));
        if (!record || record.cluster !== options.ownedBy || record.name.startsWith('sha256-')) return false;
        recordOf.set(alert.id, record);
        return true;
      });
      alerts.sort(byNameThenId((a) => a.name ?? ''));
      progress(`listed ${alerts.length} alert${alerts.length === 1 ? '' : 's'}`);
      for (const alert of alerts)
        named('Alert', alert.name ?? '', alert.id, 'alert', () => exportAlert(alert));
    }
  }
  return result;
}

/**
 * Reads each service's pipes, reverse private endpoints and query endpoint, and for a service to export its
 * backup configuration, scaling schedule and upgrade window, a few services at a time.
 */
async function readServices(
  options: ExportOptions,
  services: readonly Service[],
  call: <T>(request: Promise<T>) => Promise<T>,
  progress: (line: string) => void,
): Promise<ServiceContents[]> {
  const { management, kinds } = options;
  return mapConcurrently(
    services,
    options.concurrency ?? 4,
    async (service): Promise<ServiceContents> => {
      const [pipes, endpoints, queryEndpoint, around] = await Promise.all([
        kinds.has('Pipe') ? call(management.listPipes(service.id)) : [],
        kinds.has('Pipe') || kinds.has('ReversePrivateEndpoint')
          ? call(management.listReversePrivateEndpoints(service.id))
          : [],
        kinds.has('QueryEndpoint')
          ? call(management.getQueryEndpoint(service.id)).catch((error: unknown) => {
              if (isNotFound(error)) return undefined;
              throw error;
            })
          : undefined,
        kinds.has('DatabaseService') && !options.managedBy?.('DatabaseService', service.id)
          ? readSurroundings(management, service.id, call)
          : undefined,
      ]);
      pipes.sort(byNameThenId((p) => p.name));
      endpoints.sort(byNameThenId((e) => e.description ?? ''));
      return {
        service,
        pipes,
        endpoints,
        ...(queryEndpoint ? { queryEndpoint } : {}),
        ...(around ? { around } : {}),
      };
    },
    ({ service, pipes, endpoints, queryEndpoint }, _service, done) => {
      const parts = [
        plural(pipes.length, 'pipe'),
        plural(endpoints.length, 'reverse private endpoint'),
        ...(queryEndpoint ? ['a query endpoint'] : []),
      ];
      progress(`[${done}/${services.length}] ${JSON.stringify(service.name)}: ${parts.join(', ')}`);
    },
  );
}

/**
 * A service's backup configuration, scaling schedule and upgrade window. What the service does not have (404)
 * or the organization cannot use (403: no scheduled scaling or upgrades) is absent: nothing for a spec to say.
 */
async function readSurroundings(
  management: ManagementClient,
  serviceId: string,
  call: <T>(request: Promise<T>) => Promise<T>,
): Promise<ExportedSurroundings> {
  const absent = (error: unknown) => {
    if (isNotFound(error) || (error instanceof ApiError && error.status === 403)) return undefined;
    throw error;
  };
  const [backupConfiguration, scalingSchedule, upgradeWindow] = await Promise.all([
    call(management.getBackupConfiguration(serviceId)).catch(absent),
    call(management.getScalingSchedule(serviceId)).catch(absent),
    call(management.getUpgradeWindow(serviceId)).catch(absent),
  ]);
  return {
    ...(backupConfiguration ? { backupConfiguration } : {}),
    ...(scalingSchedule ? { scalingSchedule } : {}),
    ...(upgradeWindow ? { upgradeWindow } : {}),
  };
}

/**
 * The spec parsed by the kind's schema must hold every field the mapping wrote: a field the schema would drop
 * or a value it refuses means the manifest could not adopt the object as it is.
 */
function checkSpec(kind: string, spec: Record<string, unknown>): Mapped {
  const schema = kindNamed(kind)!.spec as z.ZodType;
  const parsed = schema.safeParse(spec);
  if (!parsed.success) return { unexpressible: parsed.error.issues.map(describeIssue).join('; ') };
  const lost = lostPaths(spec, parsed.data);
  if (lost.length > 0) return { unexpressible: `a spec has no field for ${lost.join(', ')}` };
  return { spec };
}

/** Paths present in `written` that `kept` lacks or holds differently. */
function lostPaths(written: unknown, kept: unknown, path = ''): string[] {
  if (written !== null && typeof written === 'object' && kept !== null && typeof kept === 'object') {
    return Object.entries(written).flatMap(([key, value]) =>
      lostPaths(
        value,
        (kept as Record<string, unknown>)[key],
        Array.isArray(written) ? `${path}[${key}]` : path ? `${path}.${key}` : key,
      ),
    );
  }
  return isDeepStrictEqual(written, kept) ? [] : [path];
}

const byNameThenId =
  <T extends { id: string }>(name: (item: T) => string) =>
  (a: T, b: T) =>
    name(a).localeCompare(name(b)) || a.id.localeCompare(b.id);

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
