import type { AlertingClient } from '../../cloud/alerting-client.ts';
import type { ManagementClient } from '../../cloud/management-client.ts';
import type { Service } from '../../cloud/schemas/service.ts';
import { parseOwnerRecord, type Owner } from '../../managed/index.ts';

/** A kind's spec for one cloud object, or why no manifest can express the object as it is. */
export type Mapped = { spec: Record<string, unknown> } | { unexpressible: string };

/** A Secret the manifests reference and the export cannot fill: the user creates it before applying. */
export interface SecretToCreate {
  name: string;
  keys: readonly string[];
  /** `Pipe orders (source.kafka.credentialsSecretRef)`. */
  usedBy: string;
}

/**
 * What `sluice export` lends each kind's export step: the clients and options of the export, and how a
 * manifest is emitted. The walk checks each spec against its kind's schema and writes the manifest around it.
 */
export interface ExportWalk {
  management: ManagementClient;
  /** Absent without alerting keys. */
  alerting?: AlertingClient;
  /** Only services carrying every tag, and what lives in them. */
  tags?: ReadonlyArray<{ key: string; value: string }>;
  /** Only the objects the cloud records as this cluster name's. */
  ownedBy?: string;
  /** Whether the export writes manifests of `kind`. */
  wants(kind: string): boolean;
  /** The object of the cluster that already manages this cloud object (`DatabaseService team-a/orders`). */
  managedBy(kind: string, id: string): string | undefined;
  /** A cloud request, counted. */
  call<T>(request: Promise<T>): Promise<T>;
  /** One line per step, for stderr. */
  progress(line: string): void;
  /**
   * Emits the manifest of a cloud object under a Kubernetes name derived from `cloudName` (`fallback` when
   * nothing usable is left), unique per kind; `map` gives its spec. Returns the name, or undefined when the
   * object is left out (the cluster manages it already) or its spec cannot express it (recorded as skipped).
   */
  named(
    kind: string,
    cloudName: string,
    id: string,
    fallback: string,
    map: (name: string) => Mapped,
  ): string | undefined;
  /** The name of the manifest emitted for a cloud object, if one was. */
  nameOf(kind: string, id: string): string | undefined;
  /** An object `ownedBy` exports goes back as the object it was: its namespace and name, by this record. */
  ownedAs(id: string, record: Owner): void;
  /** A Secret the user must create before applying. */
  secretToCreate(secret: SecretToCreate): void;
  /** A field left out because it holds a credential (`Pipe orders: extraSettings.strings.sasl_password`). */
  withheld(field: string): void;
}

/**
 * A kind whose objects live in a service. For each service exported, every such kind reads what it needs
 * (the walk reads all services a few at a time), then each emits its manifests, in `position` order.
 */
export interface ServiceExport<T extends { id: string } = { id: string }> {
  scope: 'service';
  /** Where the kind's manifests stand among a service's: lower first. */
  position: number;
  /** The service's objects this kind needs, sorted as they are emitted; undefined when it needs none. */
  read(walk: ExportWalk, service: Service): Promise<readonly T[]> | undefined;
  /** What the service holds, for the progress line (`2 pipes`). */
  summary?(objects: readonly T[]): string[];
  /** Emits the manifests of the objects read; called only when the export wants the kind. */
  emit(walk: ExportWalk, service: Service, objects: readonly T[]): void;
}

/** A kind whose objects belong to the organization: exported after every service, in `position` order. */
export interface OrganizationExport {
  scope: 'organization';
  position: number;
  /** Lists and emits the kind's objects; called only when the export wants the kind. */
  run(walk: ExportWalk): Promise<void>;
}

export type KindExport = ServiceExport<{ id: string }> | OrganizationExport;

/** Sorts by name, then by id: the export's output is the same for the same cloud. */
export const byNameThenId =
  <T extends { id: string }>(name: (item: T) => string) =>
  (a: T, b: T) =>
    name(a).localeCompare(name(b)) || a.id.localeCompare(b.id);

export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * The listed objects an export takes: every one, or with `ownedBy` those whose record (`recordOf`) names that
 * cluster and a named object (not a hashed name), each to go back as the object it was.
 */
export function ownedByCluster<T extends { id: string }>(
  walk: ExportWalk,
  listed: readonly T[],
  recordOf: (object: T) => string | undefined,
): T[] {
  return listed.filter((object) => {
    if (walk.ownedBy === undefined) return true;
    const record = parseOwnerRecord(recordOf(object));
    if (!record || record.cluster !== walk.ownedBy || record.name.startsWith('sha256-')) return false;
    walk.ownedAs(object.id, record);
    return true;
  });
}
