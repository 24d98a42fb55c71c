// The DatabaseService's mapping between spec and cloud, pure: the create body (`serviceCreateBody`), the
// differences and the plan (`diffService`), the status (`availability`), the spec's terms (`serviceAsSpec`),
// the comparison observe returns of them (`serviceComparison`) and the export mapping (`exportService`: the
// cloud object back to the spec that adopts it).
import { PASSWORD_FIELD, type DatabaseServiceSpec } from './schema.ts';
import { NUM_REPLICAS, SIZING_FIELDS, TOGGLEABLE_ENDPOINT_PROTOCOLS } from '../../cloud/schemas/service.ts';
import type { ReplicaScalingRequest, ServiceCommand } from '../../cloud/schemas/service.ts';
import { ServiceCreateRequest, ServiceUpdateRequest, type Service } from '../../cloud/schemas/service.ts';
import type { ServiceCreateBody } from '../../cloud/management-client.ts';
import { isDeepStrictEqual } from 'node:util';
import {
  BACKUP_DEFAULTS,
  type Backup,
  type BackupConfiguration,
  type BackupConfigurationUpdate,
  type ScalingSchedule,
  type ScalingScheduleUpdate,
  type UpgradeWindow,
  type UpgradeWindowUpdate,
} from '../../cloud/schemas/lifecycle.ts';
import { requestBody } from '../../cloud/request-body.ts';
import type { Comparison } from '../../managed/index.ts';
import { isSluiceTag, OWNER_TAG } from '../shared/service-tags.ts';

/** What the cloud keeps beside the service object that the spec also manages (read only when the spec asks). */
export interface ServiceSurroundings {
  /** The backup configuration, in the spec's terms. */
  backups?: BackupPolicy;
  /** The scaling schedule as the cloud has it, or the cloud's refusal to show it (403: no such feature). */
  scalingSchedule?: ObservedSchedule | { refused: Error };
  /** The upgrade window; null when the service has none. */
  upgradeWindow?: { weekday: number; startHourUtc: number } | null;
}

export type ScalingWindow = NonNullable<DatabaseServiceSpec['scalingSchedule']>[number];

export interface ObservedSchedule {
  /** The cloud's entries in the spec's terms (no id, no isActiveNow). */
  windows: ScalingWindow[];
  /** The entry the cloud applies now. */
  active?: ScalingWindow;
}

const WINDOW_FIELDS = [
  'name',
  'weekdays',
  'startHourUtc',
  'endHourUtc',
  'autoscalingMode',
  'minReplicas',
  'maxReplicas',
  'minReplicaMemoryGb',
  'maxReplicaMemoryGb',
  'idleScaling',
  'idleTimeoutMinutes',
] as const;

/** A window as the spec writes it: the fields it names, weekdays in order. */
export function windowAsSpec(entry: Record<string, unknown>): ScalingWindow {
  const window: Record<string, unknown> = {};
  for (const field of WINDOW_FIELDS) if (entry[field] !== undefined) window[field] = entry[field];
  window.weekdays = [...(entry.weekdays as number[])].sort((a, b) => a - b);
  return window as ScalingWindow;
}

/** The schedule's answer in the spec's terms. */
export function observedSchedule(schedule: ScalingSchedule): ObservedSchedule {
  const active = schedule.entries.find((entry) => entry.id === schedule.activeEntryId);
  return {
    windows: schedule.entries.map(windowAsSpec),
    ...(active ? { active: windowAsSpec(active) } : {}),
  };
}

/** The whole schedule to POST when the cloud's differs from the spec's (or could not be read). */
function diffSchedule(
  desired: ScalingWindow[] | undefined,
  observed: ServiceSurroundings['scalingSchedule'],
): ScalingScheduleUpdate | undefined {
  if (desired === undefined || observed === undefined || 'refused' in observed) return undefined;
  const wanted = desired.map((window) => windowAsSpec(window));
  if (sameWindows(wanted, observed.windows)) return undefined;
  return { entries: wanted };
}

function sameWindows(a: ScalingWindow[], b: ScalingWindow[]): boolean {
  const key = (windows: ScalingWindow[]) => windows.map((w) => JSON.stringify(w)).sort();
  return isDeepStrictEqual(key(a), key(b));
}

/** The spec's sizing as a window makes it while active: what the window names over the spec's own. */
function windowSizing(spec: DatabaseServiceSpec, window: ScalingWindow): DatabaseServiceSpec {
  const horizontal = window.autoscalingMode === 'horizontal';
  return {
    ...spec,
    autoscalingMode: window.autoscalingMode ?? 'vertical',
    numReplicas: horizontal ? spec.numReplicas : (window.minReplicas ?? spec.numReplicas),
    minReplicas: horizontal ? (window.minReplicas ?? spec.minReplicas) : undefined,
    maxReplicas: horizontal ? (window.maxReplicas ?? spec.maxReplicas) : undefined,
    minReplicaMemoryGb: window.minReplicaMemoryGb ?? spec.minReplicaMemoryGb,
    maxReplicaMemoryGb: window.maxReplicaMemoryGb ?? spec.maxReplicaMemoryGb,
    idleScaling: window.idleScaling ?? spec.idleScaling,
    idleTimeoutMinutes: window.idleTimeoutMinutes ?? spec.idleTimeoutMinutes,
  };
}

/** The replicaScaling body that makes the cloud's sizing `desired`'s: only the keys that differ. */
function sizingDiff(desired: DatabaseServiceSpec, service: Service): ReplicaScalingRequest {
  const body: ReplicaScalingRequest = {};
  for (const field of SIZING_FIELDS) {
    const value = desired[field];
    if (value !== undefined && value !== service[field]) Object.assign(body, { [field]: value });
  }
  return body;
}

/**
 * Sizing against the schedule: while a window is active the window's sizing is the one to keep. The service
 * and the schedule are read at different moments, so one may be from before an edge and the other after:
 * sizing that is the spec's own or any window's is what the schedule makes at some moment, never drift;
 * anything else is corrected towards the window the cloud says is active (the spec's sizing outside them).
 */
function scheduledSizingDiff(
  spec: DatabaseServiceSpec,
  service: Service,
  schedule: ServiceSurroundings['scalingSchedule'],
): ReplicaScalingRequest {
  const base = sizingDiff(spec, service);
  if (schedule === undefined || 'refused' in schedule || schedule.windows.length === 0) return base;
  if (Object.keys(base).length === 0) return {};
  const targets = schedule.windows.map((window) => windowSizing(spec, window));
  if (targets.some((target) => Object.keys(sizingDiff(target, service)).length === 0)) return {};
  return schedule.active ? sizingDiff(windowSizing(spec, schedule.active), service) : base;
}

export type BackupPolicy = NonNullable<DatabaseServiceSpec['backups']>;

/** The backup configuration in the spec's terms: a start time the cloud does not have is absent. */
export function backupPolicyOf(configuration: BackupConfiguration): BackupPolicy {
  return {
    periodInHours: configuration.backupPeriodInHours as BackupPolicy['periodInHours'],
    retentionInHours: configuration.backupRetentionPeriodInHours,
    ...(configuration.backupStartTime ? { startTime: configuration.backupStartTime } : {}),
  };
}

export interface ServiceDiff {
  /** The minimal PATCH body: only what differs; list fields as `{add, remove}` against the cloud's list. */
  patch: ServiceUpdateRequest;
  /** The backup configuration PATCH: only the fields that differ. */
  backupConfiguration?: BackupConfigurationUpdate;
  /** The whole scaling schedule, when the cloud's differs from the spec's. */
  scalingSchedule?: ScalingScheduleUpdate;
  /**
   * Why the schedule cannot be managed (the organization lacks the feature): reported once the rest of the
   * spec is sent, without sending a schedule the cloud would refuse again.
   */
  scheduleRefused?: Error;
  /** The upgrade window, when the cloud's differs from the spec's. */
  upgradeWindow?: UpgradeWindowUpdate;
  /** The replicaScaling PATCH body, present when a sizing field differs: only the sizing keys that differ. */
  replicaScaling?: ReplicaScalingRequest;
  /** Set the password from `passwordSecretRef` (by hash): the cloud has not been given its current value. */
  setPassword?: boolean;
  /** The state command that moves the cloud towards the desired state, when one is due now. */
  command?: Extract<ServiceCommand, 'start' | 'stop'>;
  /** Spec field names that differ, for conditions and Events. */
  differences: string[];
  /**
   * The PATCH only records the owner (an earlier version's uid tag replaced, or a new cluster name): no
   * user asked for it, so it waits behind users' changes.
   */
  ownerRecordOnly?: boolean;
}

/** States in which a service counts as Running (idle services wake on the first query). */
const RUNNING_STATES = new Set(['running', 'idle']);
/** States a stop command is accepted in. */
const STOPPABLE_STATES = new Set(['running', 'idle', 'degraded']);

/**
 * Compares the desired spec with the service the cloud reports and says what to send. Pure: the same inputs
 * always give the same PATCH, which the unit tests pin down field by field. `owner` is the object's owner
 * record, for its owner tag; undefined for a service adopted by id, which gets no tag it did not ask for.
 */
export function diffService(
  spec: DatabaseServiceSpec,
  owner: string | undefined,
  service: Service,
  surroundings: ServiceSurroundings = {},
): ServiceDiff {
  const patch: ServiceUpdateRequest = {};
  const differences: string[] = [];
  const note = (field: string) => differences.push(field);

  if (spec.name !== service.name) {
    patch.name = spec.name;
    note('name');
  }

  const ipEdit = listEdit(
    (spec.ipAccessList ?? []).map((e) => ({
      source: e.source,
      ...(e.description ? { description: e.description } : {}),
    })),
    (service.ipAccessList ?? []).map((e) => ({
      source: e.source,
      ...(e.description ? { description: e.description } : {}),
    })),
    (e) => `${e.source}\u0000${e.description ?? ''}`,
  );
  if (spec.ipAccessList !== undefined && ipEdit) {
    patch.ipAccessList = ipEdit;
    note('ipAccessList');
  }

  const endpointEdit = listEdit(spec.privateEndpointIds ?? [], service.privateEndpointIds ?? [], (id) => id);
  if (spec.privateEndpointIds !== undefined && endpointEdit) {
    patch.privateEndpointIds = endpointEdit;
    note('privateEndpointIds');
  }

  if (spec.releaseChannel !== undefined && spec.releaseChannel !== service.releaseChannel) {
    patch.releaseChannel = spec.releaseChannel;
    note('releaseChannel');
  }

  const toggles = (spec.endpoints ?? []).filter(
    (toggle) => toggle.enabled !== (service.endpoints ?? []).some((e) => e.protocol === toggle.protocol),
  );
  if (toggles.length > 0) {
    patch.endpoints = toggles;
    note('endpoints');
  }

  // Without spec.tags the cloud's tags are left as they are (an adopted service keeps its own), sluice's
  // aside: the owner tag is kept as this object's record, and replaces an earlier version's uid tag.
  // Without an owner (adopted by id) sluice writes no record, so it removes none: a record another cluster
  // (or an earlier incarnation) wrote stays as the cloud has it.
  const keptTags = [
    ...(spec.tags === undefined ? (service.tags ?? []).filter((t) => !isSluiceTag(t)) : []),
    ...(owner === undefined ? (service.tags ?? []).filter(isSluiceTag) : []),
  ];
  const tagEdit =
    spec.tags === undefined && owner === undefined
      ? undefined
      : listEdit(
          [...keptTags, ...desiredTags(spec, owner)],
          service.tags ?? [],
          (t) => `${t.key}\u0000${t.value}`,
        );
  if (tagEdit) {
    patch.tags = tagEdit;
    note('tags');
  }

  if (
    spec.transparentDataEncryptionKeyId !== undefined &&
    spec.transparentDataEncryptionKeyId !== service.transparentDataEncryptionKeyId
  ) {
    patch.transparentDataEncryptionKeyId = spec.transparentDataEncryptionKeyId;
    note('transparentDataEncryptionKeyId');
  }

  // Sizing has its own operation; a field the spec leaves out is the cloud's to choose.
  const replicaScaling = scheduledSizingDiff(spec, service, surroundings.scalingSchedule);
  for (const field of Object.keys(replicaScaling)) note(field);

  // Each field by its own path, so a plan shows `backups.retentionInHours: 24 → 72`.
  const backupConfiguration = diffBackups(spec.backups, surroundings.backups);
  for (const field of Object.keys(backupConfiguration ?? {})) note(`backups.${BACKUP_SPEC_FIELDS[field]}`);

  const scalingSchedule = diffSchedule(spec.scalingSchedule, surroundings.scalingSchedule);
  const scheduleRefused =
    spec.scalingSchedule && surroundings.scalingSchedule && 'refused' in surroundings.scalingSchedule
      ? surroundings.scalingSchedule.refused
      : undefined;
  if (scalingSchedule || scheduleRefused) note('scalingSchedule');

  // Sent whole or not at all: a field left to a cloud that has no window yet leaves nothing to send.
  const wantedWindow = spec.upgradeWindow;
  const upgradeWindow =
    wantedWindow?.weekday !== undefined &&
    wantedWindow.startHourUtc !== undefined &&
    !isDeepStrictEqual(wantedWindow, surroundings.upgradeWindow)
      ? { weekday: wantedWindow.weekday, startHourUtc: wantedWindow.startHourUtc }
      : undefined;
  if (upgradeWindow) {
    const observed = surroundings.upgradeWindow;
    if (!observed) note('upgradeWindow');
    for (const field of ['weekday', 'startHourUtc'] as const)
      if (observed && observed[field] !== upgradeWindow[field]) note(`upgradeWindow.${field}`);
  }

  const state = service.state ?? 'running';
  const command = stateCommand(spec.state ?? 'Running', state);
  if (command) note('state');
  const ownerRecordOnly =
    differences.length === 1 &&
    tagEdit !== undefined &&
    [...(tagEdit.add ?? []), ...(tagEdit.remove ?? [])].every(isSluiceTag);
  return {
    patch: requestBody(ServiceUpdateRequest, patch),
    ...(Object.keys(replicaScaling).length > 0 ? { replicaScaling } : {}),
    ...(backupConfiguration ? { backupConfiguration } : {}),
    ...(scalingSchedule ? { scalingSchedule } : {}),
    ...(scheduleRefused ? { scheduleRefused } : {}),
    ...(upgradeWindow ? { upgradeWindow } : {}),
    ...(command ? { command } : {}),
    differences,
    ...(ownerRecordOnly ? { ownerRecordOnly } : {}),
  };
}

/** The backup configuration's fields by the spec's names. */
const BACKUP_SPEC_FIELDS: Record<string, keyof BackupPolicy> = {
  backupPeriodInHours: 'periodInHours',
  backupRetentionPeriodInHours: 'retentionInHours',
  backupStartTime: 'startTime',
};

/**
 * The backup configuration PATCH that makes the cloud's policy the spec's: only the fields the spec sets and
 * the cloud differs on. A period other than 24 hours cannot stand beside a start time, so one the cloud has
 * and the spec does not name is cleared with it.
 */
export function diffBackups(
  desired: BackupPolicy | undefined,
  observed: BackupPolicy | undefined,
): BackupConfigurationUpdate | undefined {
  if (!desired || !observed) return undefined;
  const patch: BackupConfigurationUpdate = {};
  if (desired.periodInHours !== undefined && desired.periodInHours !== observed.periodInHours) {
    patch.backupPeriodInHours = desired.periodInHours;
    if (desired.startTime === undefined && observed.startTime && desired.periodInHours !== 24)
      patch.backupStartTime = null;
  }
  if (desired.retentionInHours !== undefined && desired.retentionInHours !== observed.retentionInHours)
    patch.backupRetentionPeriodInHours = desired.retentionInHours;
  if (desired.startTime !== undefined && desired.startTime !== observed.startTime)
    patch.backupStartTime = desired.startTime;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** The backup a service is created from, as status.restoredFromBackup records it. */
export interface RestorePoint {
  id: string;
  /** The DatabaseService it is a backup of (spec.restore.fromBackupOf), and its cloud id. */
  of?: string;
  serviceId?: string;
}

/**
 * The create body: the spec's fields the cloud's create request names, with the marker tag, and the backup
 * to restore (spec.backupId, or the one spec.restore resolved to). A TDE key id is not among them: it is a
 * rotation, sent by the PATCH once the service exists.
 */
export function serviceCreateBody(
  spec: DatabaseServiceSpec,
  owner: string | undefined,
  restore?: RestorePoint,
): ServiceCreateBody {
  return requestBody(ServiceCreateRequest, {
    ...spec,
    backupId: restore?.id ?? spec.backupId,
    tags: desiredTags(spec, owner),
  });
}

/** The newest finished backup, by start time: a snapshot keeps backups in the order it first saw them. */
export function latestFinishedBackup(backups: readonly Backup[]): Backup | undefined {
  let latest: Backup | undefined;
  for (const backup of backups) {
    if (backup.status !== 'done') continue;
    if (!latest || Date.parse(backup.startedAt) > Date.parse(latest.startedAt)) latest = backup;
  }
  return latest;
}

/**
 * Why `spec` cannot be created from a backup of `original` (the cloud's rule: same region and tier), naming
 * spec.restore.fromBackupOf; undefined when it can.
 */
export function restoreMismatch(spec: DatabaseServiceSpec, original: Service): string | undefined {
  const source = `spec.restore.fromBackupOf: DatabaseService ${spec.restore?.fromBackupOf}`;
  if (original.region !== spec.region)
    return `${source} runs in region ${original.region}; a service restored from its backup must be in the same region, not ${spec.region}`;
  if ((original.tier ?? undefined) !== (spec.tier ?? undefined))
    return `${source} has tier ${original.tier ?? 'none'}; a service restored from its backup must have the same tier, not ${spec.tier ?? 'none'}`;
  return undefined;
}

/** True when the service is usable in the desired state; otherwise the reason to wait. */
export function availability(
  spec: DatabaseServiceSpec,
  service: Service,
): { available: boolean; waitingFor?: string } {
  const state = service.state ?? 'running';
  const available = spec.state === 'Stopped' ? state === 'stopped' : RUNNING_STATES.has(state);
  return available ? { available } : { available, waitingFor: `service is ${state}` };
}

/**
 * The service observed in the spec's terms and the diff the field policy runs on a spec: the differences
 * and the plan (`diffService`), whether the service is usable in the state asked for (`availability`), and
 * the password when the cloud has not been given the Secret's current value (`passwordChanged`: it never
 * tells its password). `owner`: the owner record the tags must carry (undefined for an adopted service).
 */
export function serviceComparison(
  service: Service,
  surroundings: ServiceSurroundings,
  owner: string | undefined,
  passwordChanged: boolean,
): Pick<Comparison<DatabaseServiceSpec, ServiceDiff>, 'observed' | 'diff'> {
  return {
    observed: serviceAsSpec(service, surroundings),
    diff: (spec) => {
      const diff = diffService(spec, owner, service, surroundings);
      // A changed Secret (or one never sent, as on adoption) is the difference.
      if (passwordChanged) {
        diff.setPassword = true;
        diff.differences.push(PASSWORD_FIELD);
      }
      // The diff itself is what update needs: the PATCH and command for exactly the service observed.
      return { differences: diff.differences, plan: diff, ...availability(spec, service) };
    },
  };
}

/** The tags a service must carry: the user's plus sluice's owner record. */
export function desiredTags(
  spec: DatabaseServiceSpec,
  owner: string | undefined,
): { key: string; value: string }[] {
  const marker = owner === undefined ? [] : [{ key: OWNER_TAG, value: owner }];
  return [...(spec.tags ?? []).filter((t) => !isSluiceTag(t)), ...marker];
}

function stateCommand(desired: 'Running' | 'Stopped', state: string): ServiceDiff['command'] {
  if (desired === 'Running' && (state === 'stopped' || state === 'stopping')) {
    // A stopping service cannot start yet; the command is sent once it is stopped.
    return state === 'stopped' ? 'start' : undefined;
  }
  if (desired === 'Stopped' && STOPPABLE_STATES.has(state)) return 'stop';
  return undefined;
}

/** `{add, remove}` that turns `actual` into `desired` (entries compared by whole value), or undefined. */
function listEdit<T>(desired: T[], actual: T[], identity: (item: T) => string) {
  const want = new Map(desired.map((item) => [identity(item), item]));
  const have = new Map(actual.map((item) => [identity(item), item]));
  const add = [...want].filter(([id]) => !have.has(id)).map(([, item]) => item);
  const remove = [...have].filter(([id]) => !want.has(id)).map(([, item]) => item);
  if (add.length === 0 && remove.length === 0) return undefined;
  return { ...(add.length ? { add } : {}), ...(remove.length ? { remove } : {}) };
}

/**
 * The service in the spec's own terms, cloud defaults included: the values a field policy leaves to the
 * cloud (and status.drift shows). Fields the cloud does not report are absent.
 */
export function serviceAsSpec(
  service: Service,
  surroundings: ServiceSurroundings = {},
): Record<string, unknown> {
  const state = service.state ?? 'running';
  const reported = EXPORTED_SERVICE_FIELDS.filter((f) => service[f] !== undefined && service[f] !== null);
  return {
    name: service.name,
    ...Object.fromEntries(reported.map((field) => [field, service[field]])),
    ipAccessList: (service.ipAccessList ?? []).map(({ source, description }) => ({
      source,
      ...(description ? { description } : {}),
    })),
    privateEndpointIds: [...(service.privateEndpointIds ?? [])],
    endpoints: TOGGLEABLE_ENDPOINT_PROTOCOLS.map((protocol) => ({
      protocol,
      enabled: (service.endpoints ?? []).some((e) => e.protocol === protocol),
    })),
    tags: (service.tags ?? []).filter((t) => !isSluiceTag(t)).map(({ key, value }) => ({ key, value })),
    state: state === 'stopped' || state === 'stopping' ? 'Stopped' : 'Running',
    ...(surroundings.backups ? { backups: surroundings.backups } : {}),
    ...(surroundings.scalingSchedule && 'windows' in surroundings.scalingSchedule
      ? { scalingSchedule: surroundings.scalingSchedule.windows }
      : {}),
    ...(surroundings.upgradeWindow ? { upgradeWindow: surroundings.upgradeWindow } : {}),
  };
}

/** What the cloud assumes when a create leaves a field out: an export leaves these out too. */
const SERVICE_DEFAULTS: Partial<Record<keyof DatabaseServiceSpec, unknown>> = {
  idleScaling: true,
  autoscalingMode: 'vertical',
  releaseChannel: 'default',
  isReadonly: false,
  hasTransparentDataEncryption: false,
};

/** Fields a user sets that the cloud reports under the same name (the deprecated totals follow the replicas). */
const EXPORTED_SERVICE_FIELDS = [
  'provider',
  'region',
  'tier',
  'minReplicaMemoryGb',
  'maxReplicaMemoryGb',
  'numReplicas',
  'idleScaling',
  'idleTimeoutMinutes',
  'autoscalingMode',
  'minReplicas',
  'maxReplicas',
  'releaseChannel',
  'byocId',
  'encryptionKey',
  'encryptionAssumedRoleIdentifier',
  'hasTransparentDataEncryption',
  'transparentDataEncryptionKeyId',
  'profile',
  'complianceType',
] as const satisfies readonly (keyof DatabaseServiceSpec & keyof Service)[];

/** What the cloud keeps beside a service, as an export reads it: each absent when the service has none. */
export interface ExportedSurroundings {
  backupConfiguration?: BackupConfiguration;
  /** Absent too when the organization lacks scheduled scaling (403). */
  scalingSchedule?: ScalingSchedule;
  upgradeWindow?: UpgradeWindow;
}

/**
 * The spec that adopts `service` as it is: every field a user can set that the cloud reports, server defaults
 * left out, so the first reconcile finds no difference. Undefined with the reason when no spec can say it.
 * With `around`, the backup policy (its fields that are not the cloud's defaults), the scaling schedule and
 * the upgrade window too; while a window is active the sizing written is the schedule's base, not the
 * window's, so the spec holds what the service runs outside its windows.
 */
export function exportService(
  cloudService: Service,
  around: ExportedSurroundings = {},
): { spec: Record<string, unknown> } | { unexpressible: string } {
  const service = atBaseSizing(cloudService, around.scalingSchedule);
  const state = service.state ?? 'running';
  if (state === 'terminating') return { unexpressible: 'the service is being deleted' };
  const spec: Record<string, unknown> = { name: service.name };
  for (const field of EXPORTED_SERVICE_FIELDS) {
    const value = service[field];
    if (value !== undefined && value !== null && SERVICE_DEFAULTS[field] !== value) spec[field] = value;
  }
  if (service.autoscalingMode !== 'horizontal') {
    delete spec.minReplicas;
    delete spec.maxReplicas;
  }
  // Joining a warehouse is how a secondary service was created; a primary one started its own.
  if (service.isPrimary === false && service.dataWarehouseId) {
    spec.dataWarehouseId = service.dataWarehouseId;
    if (service.isReadonly) spec.isReadonly = true;
  } else if (typeof spec.numReplicas === 'number' && spec.numReplicas < NUM_REPLICAS.firstInWarehouseMin) {
    // The lowest tier's default, which a spec for a first service cannot ask for: the cloud's to keep.
    delete spec.numReplicas;
  }
  const ipAccessList = (service.ipAccessList ?? []).map(({ source, description }) => ({
    source,
    ...(description ? { description } : {}),
  }));
  if (ipAccessList.length > 0) spec.ipAccessList = ipAccessList;
  if ((service.privateEndpointIds ?? []).length > 0)
    spec.privateEndpointIds = [...service.privateEndpointIds!];
  // Only mysql can be switched; it is off unless enabled.
  if ((service.endpoints ?? []).some((e) => e.protocol === 'mysql'))
    spec.endpoints = [{ protocol: 'mysql', enabled: true }];
  const tags = (service.tags ?? []).filter((t) => !isSluiceTag(t)).map(({ key, value }) => ({ key, value }));
  if (tags.length > 0) spec.tags = tags;
  spec.state = state === 'stopped' || state === 'stopping' ? 'Stopped' : 'Running';
  const backups = around.backupConfiguration && exportedBackups(around.backupConfiguration);
  if (backups) spec.backups = backups;
  const entries = around.scalingSchedule?.entries ?? [];
  if (entries.length > 0) spec.scalingSchedule = entries.map(windowAsSpec);
  if (around.upgradeWindow) {
    const { weekday, startHourUtc } = around.upgradeWindow;
    spec.upgradeWindow = { weekday, startHourUtc };
  }
  return { spec };
}

/** The backup policy's fields that differ from the cloud's defaults; undefined when none does. */
function exportedBackups(configuration: BackupConfiguration): BackupPolicy | undefined {
  const { periodInHours, retentionInHours, startTime } = backupPolicyOf(configuration);
  const policy: BackupPolicy = {
    ...(periodInHours !== BACKUP_DEFAULTS.backupPeriodInHours ? { periodInHours } : {}),
    ...(retentionInHours !== BACKUP_DEFAULTS.backupRetentionPeriodInHours ? { retentionInHours } : {}),
    ...(startTime ? { startTime } : {}),
  };
  return Object.keys(policy).length > 0 ? policy : undefined;
}

/** The service with the sizing it runs outside every window, when a window of `schedule` is active now. */
function atBaseSizing(service: Service, schedule: ScalingSchedule | undefined): Service {
  const base = schedule?.activeEntryId ? schedule.baseConfig : undefined;
  if (!base) return service;
  const horizontal = base.autoscalingMode === 'horizontal';
  const sizing = Object.fromEntries(
    Object.entries({
      autoscalingMode: base.autoscalingMode,
      numReplicas: horizontal ? undefined : base.minReplicas,
      minReplicas: horizontal ? base.minReplicas : undefined,
      maxReplicas: horizontal ? base.maxReplicas : undefined,
      minReplicaMemoryGb: base.minReplicaMemoryGb,
      maxReplicaMemoryGb: base.maxReplicaMemoryGb,
      idleScaling: base.idleScaling,
      idleTimeoutMinutes: base.idleTimeoutMinutes,
    }).filter(([, value]) => value !== undefined),
  );
  // A horizontal base scales between its bounds: the count the window runs is not the base's.
  return { ...service, ...sizing, ...(horizontal ? { numReplicas: undefined } : {}) };
}
