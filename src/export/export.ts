import { parseOwnerRecord, ANNOTATIONS, type Owner, type FieldPolicy } from '../managed/index.ts';
import { OWNER_TAG } from '../kinds/shared/service-tags.ts';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { API_VERSION } from '../kinds/shared/common.ts';
import type { AlertingClient } from '../cloud/alerting-client.ts';
import type { ManagementClient } from '../cloud/management-client.ts';
import { describeIssue } from '../cloud/schemas/issues.ts';
import {
  byNameThenId,
  type ExportWalk,
  type KindExport,
  type Mapped,
  type SecretToCreate,
} from '../kinds/shared/export-step.ts';
import { KINDS, kindNamed } from '../kinds/index.ts';
import { mapConcurrently } from '../base/map-concurrently.ts';
import { fieldPolicyFor } from './field-policy.ts';
import type { ManagedBy } from './managed-in-cluster.ts';
import { NameRegistry } from './names.ts';

export type { SecretToCreate } from '../kinds/shared/export-step.ts';

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

/**
 * Reads the organization through the given clients (so through their quota scheduler) and writes one
 * manifest per object that adopts it unchanged: `sluice.dev/external-id`, `deletionPolicy: Orphan` (and with
 * `observe`, `managementPolicy: Observe`), the spec
 * the kind's own export mapping gives, references by name between exported objects. Each kind's export step
 * (`src/kinds/<kind>/export.ts`) reads its objects and maps them: first what lives in each service, read a few
 * services at a time, then what belongs to the organization. Each spec is checked against its kind's schema;
 * one that does not fit whole is skipped with the reason, never emitted in part.
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
  const names = new NameRegistry();
  /** The owner record of an object `ownedBy` exports: where and under what name it goes back. */
  const recordOf = new Map<string, Owner>();
  /** The namespace of the owned service an exported child lives in. */
  const namespaceOf = new Map<string, string>();
  /** The names of the manifests emitted, by kind and cloud id. */
  const emitted = new Map<string, string>();
  /** Emits the manifest named `name`, or records why the object cannot be expressed; true when emitted. */
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
  const walk: ExportWalk = {
    management: options.management,
    ...(options.alerting ? { alerting: options.alerting } : {}),
    ...(options.tags ? { tags: options.tags } : {}),
    ...(options.ownedBy !== undefined ? { ownedBy: options.ownedBy } : {}),
    wants: (kind) => kinds.has(kind),
    managedBy: (kind, id) => options.managedBy?.(kind, id),
    call: (request) => {
      result.calls++;
      return request;
    },
    progress,
    named: (kind, cloudName, id, fallback, map) => {
      const managedBy = options.managedBy?.(kind, id);
      if (managedBy) {
        result.leftOut.push({ kind, id, cloudName, managedBy });
        return undefined;
      }
      // An object `ownedBy` exports goes back under its own name: what references to it (and its Secrets) use.
      const name = recordOf.get(id)?.name ?? names.take(kind, cloudName, fallback);
      if (!emit(kind, name, cloudName, id, map(name))) return undefined;
      emitted.set(keyOf(kind, id), name);
      return name;
    },
    nameOf: (kind, id) => emitted.get(keyOf(kind, id)),
    ownedAs: (id, record) => recordOf.set(id, record),
    secretToCreate: (secret) => result.secrets.push(secret),
    withheld: (field) => result.withheld.push(field),
  };

  const steps = (
    await Promise.all(
      KINDS.map(async (kind) => ({ kind: kind.kind, step: (await kind.exportStep()) as KindExport })),
    )
  ).sort((a, b) => a.step.position - b.step.position);
  const inServices = steps.flatMap(({ kind, step }) => (step.scope === 'service' ? [{ kind, step }] : []));
  const services = inServices.some(({ kind }) => kinds.has(kind))
    ? await walk.call(options.management.listServices(options.tags ? { tags: options.tags } : {}))
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
  const contents = await mapConcurrently(
    services,
    options.concurrency ?? 4,
    (service) => Promise.all(inServices.map(({ step }) => step.read(walk, service) ?? Promise.resolve([]))),
    (read, service, done) => {
      const parts = inServices.flatMap(({ step }, index) => step.summary?.(read[index]!) ?? []);
      progress(`[${done}/${services.length}] ${JSON.stringify(service.name)}: ${parts.join(', ')}`);
    },
  );

  for (const [index, service] of services.entries()) {
    const read = contents[index]!;
    // What lives in an owned service goes back into the service's namespace, adopted by id.
    const serviceNamespace = recordOf.get(service.id)?.namespace;
    for (const object of serviceNamespace ? read.flat() : []) namespaceOf.set(object.id, serviceNamespace!);
    inServices.forEach(({ kind, step }, at) => {
      if (kinds.has(kind)) step.emit(walk, service, read[at]!);
    });
  }

  for (const { kind, step } of steps) {
    if (step.scope === 'organization' && kinds.has(kind)) await step.run(walk);
  }
  return result;
}

const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`;

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
