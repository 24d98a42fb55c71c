// The Pipe's mapping between spec and cloud, pure: the create body (`pipeCreateBody`), the differences and the plan (`diffPipe`), the status (`pipeAvailability`), the spec's
// terms (`pipeAsSpec`) and the export mapping (`exportPipe`: the cloud object back to the spec that adopts it).
import { isDeepStrictEqual } from 'node:util';
import {
  CREDENTIAL_FIELDS,
  EXTRA_SETTING_TYPES,
  type CredentialField,
  fieldName,
  readPath,
  type PipeSpec,
} from './schema.ts';
import type { PipeCreateBody, PipeSettingsBody, PipeUpdateBody } from '../../cloud/management-client.ts';
import { requestBody } from '../../cloud/request-body.ts';
import { isCredentialField } from '../../base/credential-fields.ts';
import {
  PIPE_SCALING_DEFAULTS,
  PIPE_SETTING_KEYS,
  PipeCreateRequest,
  PipeUpdateRequest,
  SOURCE_KINDS,
  type Pipe,
  type PipeCommand,
  type SourceKind,
} from '../../cloud/schemas/pipe.ts';

export function sourceKindOf(spec: PipeSpec): SourceKind {
  const kind = SOURCE_KINDS.find((k) => spec.source[k] !== undefined);
  if (!kind) throw new Error('a Pipe spec names no source (admission should have refused it)');
  return kind;
}

/**
 * `…SecretRef` fields whose values changed (by content: a label on the Secret is no change) but which the
 * API cannot replace in place (the PATCH takes no connection string): the change reaches the cloud only with
 * a new Pipe, or goes away when the Secret's values are restored.
 */
export function unrotatableChanges(spec: PipeSpec, rotated: ReadonlySet<string>): string[] {
  return CREDENTIAL_FIELDS.filter((f) => f.source === sourceKindOf(spec) && !f.rotatable)
    .map(fieldName)
    .filter((field) => rotated.has(field));
}

/** Secret values by the referencing field (`source.kafka.credentialsSecretRef`). */
export type SecretValues = (field: string) => Readonly<Record<string, string>> | undefined;

/** The kafka source's reverse private endpoint ids: those it names by id, then those it references. */
export function kafkaEndpointIds(spec: PipeSpec, referenced: readonly string[]): string[] {
  return [...new Set([...(spec.source.kafka?.reversePrivateEndpointIds ?? []), ...referenced])];
}

/**
 * The create body: the spec's fields the cloud's create request names, each `…SecretRef` replaced by the
 * Secret's values, and the referenced reverse private endpoints (`reversePrivateEndpointRefs`, resolved by
 * the caller) as ids.
 */
export function pipeCreateBody(
  spec: PipeSpec,
  secrets: SecretValues,
  referencedEndpointIds: readonly string[] = [],
): PipeCreateBody {
  const kind = sourceKindOf(spec);
  const source = structuredClone(spec.source[kind]) as Record<string, unknown>;
  for (const field of CREDENTIAL_FIELDS.filter((f) => f.source === kind)) {
    const values = secrets(fieldName(field));
    if (values) writePath(source, field.target, credentialValue(field, values));
  }
  if (kind === 'kafka') {
    const ids = kafkaEndpointIds(spec, referencedEndpointIds);
    if (ids.length > 0) source.reversePrivateEndpointIds = ids;
  }
  return requestBody(PipeCreateRequest, {
    ...spec,
    source: { ...spec.source, [kind]: source },
    ...(spec.settings || spec.extraSettings ? { settings: desiredSettings(spec) } : {}),
  });
}

/** What differs between a Pipe spec and the pipe the cloud reports, as the calls that fix it. */
export interface PipePlan {
  /** Spec fields that differ, for the condition and the Event. */
  differences: string[];
  /** PATCH pipe: name, mappings with columns, scaling, rotated credentials. Absent when nothing differs. */
  patch?: PipeUpdateBody;
  /** PUT settings: only the keys that differ; `null` resets a key the spec no longer sets. */
  settings?: PipeSettingsBody;
  /** The state command, sent last. */
  command?: PipeCommand;
}

/**
 * The minimal calls from observed to desired. `rotated` names the `…SecretRef` fields whose Secret changed
 * since the cloud last got its values (the API never returns credentials, so this is how rotation shows).
 */
export function diffPipe(
  spec: PipeSpec,
  pipe: Pipe,
  rotated: ReadonlySet<string>,
  secrets: SecretValues,
  recordedExtraKeys: readonly string[] = [],
): PipePlan {
  const differences: string[] = [];
  const patch: Record<string, unknown> = {};
  if (spec.name !== pipe.name) {
    differences.push('name');
    patch.name = spec.name;
  }
  const observedColumns = (pipe.destination as { columns?: unknown[] }).columns ?? [];
  const mappingsDiffer = !sameItems(spec.fieldMappings ?? [], pipe.fieldMappings ?? []);
  const columnsDiffer = !sameItems(spec.destination.columns ?? [], observedColumns);
  if (mappingsDiffer || columnsDiffer) {
    // The API checks mappings against columns, so the two always travel together.
    if (mappingsDiffer) differences.push('fieldMappings');
    if (columnsDiffer) differences.push('destination.columns');
    patch.fieldMappings = spec.fieldMappings ?? [];
    patch.destination = { columns: spec.destination.columns ?? [] };
  }
  const scaling = spec.scaling ?? {};
  const observedScaling = (pipe.scaling ?? {}) as Record<string, unknown>;
  if (Object.entries(scaling).some(([key, value]) => observedScaling[key] !== value)) {
    differences.push('scaling');
    patch.scaling = scaling;
  }
  const kind = sourceKindOf(spec);
  for (const field of CREDENTIAL_FIELDS.filter((f) => f.source === kind && f.rotatable)) {
    const values = secrets(fieldName(field));
    if (!values || !rotated.has(fieldName(field))) continue;
    differences.push(fieldName(field));
    const source = ((patch.source as Record<string, Record<string, unknown>> | undefined) ?? {}) as Record<
      string,
      Record<string, unknown>
    >;
    source[kind] ??= {};
    writePath(source[kind], field.target, credentialValue(field, values));
    patch.source = source;
  }

  const observedSettings = (pipe.settings ?? {}) as Record<string, unknown>;
  const settings = diffSettings(
    desiredSettings(spec),
    observedSettings,
    extraSettingKeys(spec, recordedExtraKeys, observedSettings),
  );
  if (settings) differences.push(...Object.keys(settings).map((key) => `settings.${key}`));

  const command = stateCommand(spec.state, pipe.state);
  if (command) differences.push('state');
  return {
    differences,
    ...(Object.keys(patch).length > 0 ? { patch: requestBody(PipeUpdateRequest, patch) } : {}),
    ...(settings ? { settings } : {}),
    ...(command ? { command } : {}),
  };
}

/** The settings a spec asks for: `settings` and every map of `extraSettings`, as the one map the API takes. */
export function desiredSettings(spec: PipeSpec): Record<string, unknown> {
  const extra = EXTRA_SETTING_TYPES.map((type) => spec.extraSettings?.[type] ?? {});
  return Object.assign({}, spec.settings, ...extra) as Record<string, unknown>;
}

/**
 * The keys outside the contract's twelve that this Pipe manages: those its spec sets, and those it managed
 * before (`recorded`, kept in status) while the cloud still holds them, so dropping one from the spec resets
 * it. A key set in the cloud outside the spec is someone else's: never drift, never reset.
 */
export function extraSettingKeys(
  spec: PipeSpec,
  recorded: readonly string[],
  observed: Readonly<Record<string, unknown>> | undefined,
): string[] {
  const contract = new Set<string>(PIPE_SETTING_KEYS);
  const wanted = Object.keys(desiredSettings(spec)).filter((key) => !contract.has(key));
  const held = recorded.filter((key) => (observed?.[key] ?? null) !== null && !contract.has(key));
  return [...new Set([...wanted, ...held])].sort();
}

/**
 * Only the keys whose value differs, among the contract's twelve and the `extraKeys` sluice manages; a key
 * the spec dropped but the cloud still sets is reset with null.
 */
export function diffSettings(
  desired: Readonly<Record<string, unknown>>,
  observed: Readonly<Record<string, unknown>>,
  extraKeys: readonly string[] = [],
): PipeSettingsBody | undefined {
  const body: Record<string, unknown> = {};
  for (const key of [...PIPE_SETTING_KEYS, ...extraKeys]) {
    const want = desired[key] ?? null;
    if (want !== (observed[key] ?? null)) body[key] = want;
  }
  return Object.keys(body).length > 0 ? (body as PipeSettingsBody) : undefined;
}

/** The command that moves the pipe toward the desired state, if one is due now. */
export function stateCommand(desired: 'Running' | 'Stopped', state: string): PipeCommand | undefined {
  if (desired === 'Stopped') return ['Stopped', 'Stopping', 'Completed'].includes(state) ? undefined : 'stop';
  // A Failed pipe is the user's to look at (Ready says CloudFailed); a stopped or paused one is started.
  return state === 'Stopped' || state === 'Paused' ? 'start' : undefined;
}

/** States on the way to the desired one: waited for, not acted on. */
const SETTLING_STATES = ['Provisioning', 'Setup', 'Snapshot', 'Modifying', 'Stopping', 'Pausing', 'Unknown'];
const FAILED_STATES = ['Failed', 'InternalError'];

export type PipeAvailability =
  { available: true } | { available: false; waitingFor: string } | { available: false; failed: string };

/**
 * Ready means the cloud state is the desired one (Running or Stopped), or Completed for a one-shot load: that
 * is done whatever the desired state, and `stateCommand` does not stop it.
 */
export function pipeAvailability(spec: PipeSpec, state: string): PipeAvailability {
  if (FAILED_STATES.includes(state))
    return { available: false, failed: `the cloud reports the pipe ${state}` };
  const oneShot = spec.source.objectStorage !== undefined && spec.source.objectStorage.isContinuous !== true;
  if (state === spec.state || (oneShot && state === 'Completed')) return { available: true };
  return {
    available: false,
    waitingFor: SETTLING_STATES.includes(state) ? `pipe is ${state}` : `pipe is ${state}, want ${spec.state}`,
  };
}

/**
 * Settings the cloud reports as set (null means default and is left out of status): the contract's keys in
 * `settings`, every other key in `extraSettings`.
 */
export function setSettings(settings: Readonly<Record<string, unknown>> | undefined): {
  settings: Record<string, unknown>;
  extraSettings: Record<string, unknown>;
} {
  const contract = new Set<string>(PIPE_SETTING_KEYS);
  const set = Object.entries(settings ?? {}).filter(([, value]) => value !== null);
  return {
    settings: Object.fromEntries(set.filter(([key]) => contract.has(key))),
    extraSettings: Object.fromEntries(set.filter(([key]) => !contract.has(key))),
  };
}

function credentialValue(field: CredentialField, values: Readonly<Record<string, string>>): unknown {
  return field.scalar ? values[field.keys[0]!] : { ...values };
}

/** Order-insensitive comparison of lists of flat objects (mappings, columns). */
function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  const canonical = (items: readonly unknown[]) =>
    items.map((item) => JSON.stringify(Object.entries(item as object).sort())).sort();
  return a.length === b.length && isDeepStrictEqual(canonical(a), canonical(b));
}

function writePath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[path.at(-1)!] = value;
}

/**
 * Whether a pipe's source holds the credential the cloud never returns, judged by its `authentication` (an
 * IAM role needs none). Schema registry credentials are optional and nothing shows them: never assumed.
 */
const HOLDS_CREDENTIAL: Record<string, (source: Record<string, unknown>) => boolean> = {
  'source.kafka.credentialsSecretRef': (s) => !['IAM_ROLE', 'MUTUAL_TLS'].includes(String(s.authentication)),
  'source.kafka.schemaRegistry.credentialsSecretRef': () => false,
  'source.objectStorage.accessKeySecretRef': (s) => s.authentication === 'IAM_USER',
  'source.objectStorage.connectionStringSecretRef': (s) => s.authentication === 'CONNECTION_STRING',
  'source.kinesis.accessKeySecretRef': (s) => s.authentication !== 'IAM_ROLE',
  'source.postgres.credentialsSecretRef': (s) => s.authentication !== 'IAM_ROLE',
};

/** A Secret an exported spec references: the user creates it with these keys before applying. */
export interface ExportedSecret {
  field: string;
  name: string;
  keys: readonly string[];
}

/** Pipe states a spec can express without a state command: Paused would be started or stopped. */
const STOPPED_STATES = ['Stopped', 'Stopping'];
const UNEXPRESSIBLE_STATES = ['Paused', 'Pausing'];

/**
 * The spec that adopts `pipe` as it is, without its service (the caller adds `serviceRef` or `serviceId`).
 * `secretName` names the Secret of a credential (`kafka-credentials`); `endpointRef` names the exported
 * ReversePrivateEndpoint of an id, if there is one.
 */
export function exportPipe(
  pipe: Pipe,
  secretName: (purpose: string) => string,
  endpointRef: (id: string) => string | undefined,
):
  | { spec: Record<string, unknown>; secrets: ExportedSecret[]; withheld: string[] }
  | { unexpressible: string } {
  if (UNEXPRESSIBLE_STATES.includes(pipe.state))
    return { unexpressible: `the pipe is ${pipe.state}, which a spec (Running or Stopped) cannot keep` };
  const kind = SOURCE_KINDS.find((k) => (pipe.source as Record<string, unknown>)[k] !== undefined);
  if (!kind) return { unexpressible: 'the cloud reports no source kind' };
  const source = structuredClone((pipe.source as Record<string, Record<string, unknown>>)[kind]!);
  const secrets: ExportedSecret[] = [];
  for (const field of CREDENTIAL_FIELDS.filter((f) => f.source === kind)) {
    const holder = readPath(source, field.ref.slice(0, -1)) as Record<string, unknown> | undefined;
    // A credential the cloud did return is never printed: it is a Secret reference like the others.
    const returned = holder !== undefined && holder[field.target.at(-1)!] !== undefined;
    if (returned) delete holder[field.target.at(-1)!];
    if (holder === undefined || !(returned || HOLDS_CREDENTIAL[fieldName(field)]?.(source))) continue;
    const purpose = [kind, ...field.ref].join('-').replace(/SecretRef$/, '');
    const name = secretName(kebabCase(purpose));
    writePath(source, field.ref, { name });
    secrets.push({ field: fieldName(field), name, keys: field.keys });
  }
  if (kind === 'kafka' && Array.isArray(source.reversePrivateEndpointIds)) {
    const ids = source.reversePrivateEndpointIds as string[];
    const refs = ids.flatMap((id) => endpointRef(id) ?? []);
    const plain = ids.filter((id) => endpointRef(id) === undefined);
    delete source.reversePrivateEndpointIds;
    if (plain.length > 0) source.reversePrivateEndpointIds = plain;
    if (refs.length > 0) source.reversePrivateEndpointRefs = refs.map((name) => ({ name }));
  }
  const scaling = Object.fromEntries(
    Object.entries(pipe.scaling ?? {}).filter(
      ([key, value]) => (PIPE_SCALING_DEFAULTS as Record<string, unknown>)[key] !== value,
    ),
  );
  const { settings, extraSettings } = setSettings(pipe.settings);
  // A setting named like a credential is never printed; left out of the spec, it stays the cloud's (a key
  // the spec never set is neither drift nor reset).
  const held = Object.fromEntries(Object.entries(extraSettings).filter(([key]) => isCredentialField(key)));
  for (const key of Object.keys(held)) delete extraSettings[key];
  const withheld = Object.entries(extraSettingsSpec(held)).flatMap(([type, keys]) =>
    Object.keys(keys).map((key) => `extraSettings.${type}.${key}`),
  );
  const extra = extraSettingsSpec(extraSettings);
  const spec: Record<string, unknown> = {
    name: pipe.name,
    source: { [kind]: source },
    destination: pipe.destination,
    ...((pipe.fieldMappings ?? []).length > 0 ? { fieldMappings: pipe.fieldMappings } : {}),
    ...(Object.keys(scaling).length > 0 ? { scaling } : {}),
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    ...(Object.keys(extra).length > 0 ? { extraSettings: extra } : {}),
    state: STOPPED_STATES.includes(pipe.state) ? 'Stopped' : 'Running',
  };
  return { spec, secrets, withheld };
}

/**
 * The pipe in the spec's own terms (the fields a spec can change in place): the values a field policy
 * leaves to the cloud, and status.drift shows.
 */
export function pipeAsSpec(pipe: Pipe): Record<string, unknown> {
  const { settings, extraSettings } = setSettings(pipe.settings);
  return {
    name: pipe.name,
    destination: pipe.destination,
    fieldMappings: pipe.fieldMappings ?? [],
    scaling: pipe.scaling ?? {},
    settings,
    extraSettings: extraSettingsSpec(extraSettings),
    state: STOPPED_STATES.includes(pipe.state) ? 'Stopped' : 'Running',
  };
}

/** Settings beyond the contract's, in the spec's shape: by the type of their value. */
function extraSettingsSpec(extra: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const typeOf = { boolean: 'booleans', number: 'numbers', string: 'strings' } as const;
  const spec: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(extra)) {
    const type = typeOf[typeof value as keyof typeof typeOf];
    if (type) (spec[type] ??= {})[key] = value;
  }
  return spec;
}

const kebabCase = (text: string) => text.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
