import { z } from 'zod';
import { listEdit, NonEmptyString, Uuid } from './common.ts';

export const PROVIDERS = ['aws', 'gcp', 'azure'] as const;
export type Provider = (typeof PROVIDERS)[number];
/** Each region belongs to one provider: a service's provider and region must agree. */
export const PROVIDER_REGIONS = {
  aws: [
    'ap-northeast-1', 'ap-south-1', 'ap-southeast-1', 'ap-southeast-2', 'eu-central-1', 'eu-west-1', 'eu-west-2',
    'me-central-1', 'us-east-1', 'us-east-2', 'us-west-2',
  ],
  gcp: ['us-east1', 'us-central1', 'europe-west4', 'asia-southeast1'],
  azure: ['eastus', 'eastus2', 'westus3', 'germanywestcentral'],
} as const satisfies Record<Provider, readonly string[]>; // prettier-ignore
export const REGIONS = [...PROVIDER_REGIONS.aws, ...PROVIDER_REGIONS.gcp, ...PROVIDER_REGIONS.azure] as const;
export type Region = (typeof REGIONS)[number];

/** The provider a region belongs to. */
export const providerOfRegion = (region: Region): Provider =>
  PROVIDERS.find((provider) => (PROVIDER_REGIONS[provider] as readonly string[]).includes(region))!;
export const TIERS = [
  'development', 'production', 'dedicated_high_mem', 'dedicated_high_cpu', 'dedicated_standard',
  'dedicated_standard_n2d_standard_4', 'dedicated_standard_n2d_standard_8', 'dedicated_standard_n2d_standard_32',
  'dedicated_standard_n2d_standard_128', 'dedicated_standard_n2d_standard_32_16SSD',
  'dedicated_standard_n2d_standard_64_24SSD',
] as const; // prettier-ignore
export const RELEASE_CHANNELS = ['slow', 'default', 'fast'] as const;
export const PROFILES = [
  'v1-default', 'v1-highmem-xs', 'v1-highmem-s', 'v1-highmem-m', 'v1-highmem-l', 'v1-highmem-xl',
  'v1-highcpu-s', 'v1-highcpu-m', 'v1-highcpu-l', 'v1-highcpu-xl',
] as const; // prettier-ignore
export const COMPLIANCE_TYPES = ['hipaa', 'pci'] as const;
/** Only the mysql endpoint can be switched on or off; https and native endpoints always exist. */
export const TOGGLEABLE_ENDPOINT_PROTOCOLS = ['mysql'] as const;
export const SERVICE_STATES = [
  'provisioning', 'starting', 'running', 'stopping', 'stopped', 'idle', 'awaking', 'degraded', 'failed', 'terminating',
] as const; // prettier-ignore
export type ServiceState = (typeof SERVICE_STATES)[number];
/** States a DELETE is accepted in; running and stopping answer 409. */
export const DELETABLE_SERVICE_STATES: readonly ServiceState[] = [
  'provisioning',
  'starting',
  'awaking',
  'idle',
  'stopped',
  'degraded',
  'failed',
];

export const SERVICE_NAME_MAX = 50;
export const REPLICA_MEMORY = { min: 8, max: 356, step: 4, unpaidMax: 120 } as const;
export const TOTAL_MEMORY = { min: 24, max: 1068, step: 12, unpaidMax: 360 } as const;
export const NUM_REPLICAS = { min: 1, max: 20, firstInWarehouseMin: 2 } as const;
/** `vertical` scales memory per replica; `horizontal` scales the replica count (extension). */
export const AUTOSCALING_MODES = ['vertical', 'horizontal'] as const;
export type AutoscalingMode = (typeof AUTOSCALING_MODES)[number];
/** Bounds of `minReplicas`/`maxReplicas`, the range a horizontally scaled service moves in. */
export const AUTOSCALING_REPLICAS = { min: 1, max: 20 } as const;
export const IDLE_TIMEOUT_MINUTES_MIN = 5;
export const BYOC_REPLICA_MEMORY = [48, 116, 172, 232] as const;
export const MAX_TAGS = 50;

export const ServiceName = z
  .string()
  .min(1)
  .max(SERVICE_NAME_MAX)
  .regex(/^[A-Za-z0-9 ]+$/, { error: 'must contain only letters, digits and spaces' });

const IP_OR_CIDR = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]);
export const IpAccessEntry = z.strictObject({
  source: z.string().refine((s) => IP_OR_CIDR.safeParse(s).success, {
    error: 'must be an IP address or CIDR range',
  }),
  description: z.string().max(255).optional(),
});
export type IpAccessEntry = z.infer<typeof IpAccessEntry>;

export const Tag = z.strictObject({ key: z.string().min(1).max(128), value: z.string().max(256) });
export type Tag = z.infer<typeof Tag>;

export const EndpointToggle = z.strictObject({
  protocol: z.enum(TOGGLEABLE_ENDPOINT_PROTOCOLS),
  enabled: z.boolean(),
});

const replicaMemory = z
  .number()
  .min(REPLICA_MEMORY.min)
  .max(REPLICA_MEMORY.max)
  .multipleOf(REPLICA_MEMORY.step);
const totalMemory = z.number().min(TOTAL_MEMORY.min).max(TOTAL_MEMORY.max).multipleOf(TOTAL_MEMORY.step);

/** The sizing fields: set at creation, changed in place by the replicaScaling PATCH (extension). */
const sizingShape = {
  minReplicaMemoryGb: replicaMemory.optional(),
  maxReplicaMemoryGb: replicaMemory.optional(),
  numReplicas: z.number().int().min(NUM_REPLICAS.min).max(NUM_REPLICAS.max).optional(),
  idleScaling: z.boolean().optional(),
  idleTimeoutMinutes: z.number().min(IDLE_TIMEOUT_MINUTES_MIN).optional(),
  autoscalingMode: z.enum(AUTOSCALING_MODES).optional(),
  minReplicas: z.number().int().min(AUTOSCALING_REPLICAS.min).max(AUTOSCALING_REPLICAS.max).optional(),
  maxReplicas: z.number().int().min(AUTOSCALING_REPLICAS.min).max(AUTOSCALING_REPLICAS.max).optional(),
};
export type Sizing = z.infer<z.ZodObject<typeof sizingShape>>;
export type SizingField = keyof Sizing;
export const SIZING_FIELDS = Object.keys(sizingShape) as SizingField[];

const ServiceCreateFields = z.strictObject({
  name: ServiceName,
  provider: z.enum(PROVIDERS),
  region: z.enum(REGIONS),
  tier: z.enum(TIERS).optional(),
  ipAccessList: z.array(IpAccessEntry).optional(),
  minTotalMemoryGb: totalMemory.optional(),
  maxTotalMemoryGb: totalMemory.optional(),
  ...sizingShape,
  isReadonly: z.boolean().optional(),
  dataWarehouseId: Uuid.optional(),
  backupId: Uuid.optional(),
  encryptionKey: NonEmptyString.optional(),
  encryptionAssumedRoleIdentifier: NonEmptyString.optional(),
  privateEndpointIds: z.array(NonEmptyString).optional(),
  privatePreviewTermsChecked: z.boolean().optional(),
  releaseChannel: z.enum(RELEASE_CHANNELS).optional(),
  byocId: NonEmptyString.optional(),
  hasTransparentDataEncryption: z.boolean().optional(),
  endpoints: z.array(EndpointToggle).optional(),
  profile: z.enum(PROFILES).optional(),
  complianceType: z.enum(COMPLIANCE_TYPES).optional(),
  tags: z.array(Tag).max(MAX_TAGS).optional(),
});

/** Operation 1 body. Cross-field rules carry the path of the field the user must change. */
export const ServiceCreateRequest = ServiceCreateFields.superRefine((body, ctx) => {
  if (providerOfRegion(body.region) !== body.provider) {
    ctx.addIssue({
      code: 'custom',
      path: ['region'],
      message: `${body.region} is a region of ${providerOfRegion(body.region)}, not of provider ${body.provider}`,
    });
  }
  // Only `true` needs a warehouse: the real API takes `isReadonly: false` on any service.
  if (body.isReadonly === true && body.dataWarehouseId === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['isReadonly'],
      message: 'can be true only when dataWarehouseId is given',
    });
  }
  if (body.byocId !== undefined) {
    for (const field of ['minReplicaMemoryGb', 'maxReplicaMemoryGb'] as const) {
      if (body[field] === undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'is required when byocId is given' });
      }
    }
  }
  const sizing = sizingIssue(body, new Set(Object.keys(body)), {
    byoc: body.byocId !== undefined,
    firstInWarehouse: body.dataWarehouseId === undefined,
  });
  if (sizing) ctx.addIssue({ code: 'custom', path: [sizing.path], message: sizing.message });
  orderedPair(ctx, body, 'minTotalMemoryGb', 'maxTotalMemoryGb');
  if (body.releaseChannel !== undefined && body.tier === 'development') {
    ctx.addIssue({
      code: 'custom',
      path: ['releaseChannel'],
      message: 'is allowed only for production services',
    });
  }
});
export type ServiceCreateRequest = z.infer<typeof ServiceCreateRequest>;

/** What a service's sizing rules depend on besides the values themselves. */
export interface SizingContext {
  /** A bring-your-own-cloud service: replica memory comes in fixed sizes. */
  byoc: boolean;
  /** The first (primary) service of its warehouse needs more replicas. */
  firstInWarehouse: boolean;
}

/**
 * The sizing rules beyond each field's own bounds, shared by creation and the replicaScaling PATCH. `next`
 * holds the values the service would have; only the `changed` fields are judged (a resize must not fail for
 * a value it leaves alone), and a min/max conflict is blamed on the field that was changed.
 */
export function sizingIssue(
  next: Sizing,
  changed: ReadonlySet<string>,
  context: SizingContext,
): { path: SizingField; message: string } | undefined {
  if (context.byoc) {
    for (const field of ['minReplicaMemoryGb', 'maxReplicaMemoryGb'] as const) {
      const value = next[field];
      if (
        changed.has(field) &&
        value !== undefined &&
        !(BYOC_REPLICA_MEMORY as readonly number[]).includes(value)
      )
        return { path: field, message: `must be one of ${BYOC_REPLICA_MEMORY.join(', ')} for byoc services` };
    }
  }
  const { minReplicaMemoryGb: min, maxReplicaMemoryGb: max, numReplicas } = next;
  if (min !== undefined && max !== undefined && min > max) {
    return changed.has('minReplicaMemoryGb')
      ? { path: 'minReplicaMemoryGb', message: 'must not exceed maxReplicaMemoryGb' }
      : { path: 'maxReplicaMemoryGb', message: 'must not be less than minReplicaMemoryGb' };
  }
  const autoscaling = autoscalingIssue(next, changed);
  if (autoscaling) return autoscaling;
  if (
    context.firstInWarehouse &&
    changed.has('numReplicas') &&
    numReplicas !== undefined &&
    numReplicas < NUM_REPLICAS.firstInWarehouseMin
  ) {
    return {
      path: 'numReplicas',
      message: `must be at least ${NUM_REPLICAS.firstInWarehouseMin} for the first service in a warehouse`,
    };
  }
  return undefined;
}

/**
 * Horizontal autoscaling moves the replica count between `minReplicas` and `maxReplicas` at one fixed memory size,
 * so it needs both bounds (min ≤ max) and equal replica memory bounds; the replica bounds mean nothing vertically.
 */
function autoscalingIssue(
  next: Sizing,
  changed: ReadonlySet<string>,
): { path: SizingField; message: string } | undefined {
  const { minReplicas, maxReplicas } = next;
  if (next.autoscalingMode !== 'horizontal') {
    for (const field of ['minReplicas', 'maxReplicas'] as const) {
      if (changed.has(field))
        return { path: field, message: 'is allowed only when autoscalingMode is horizontal' };
    }
    return undefined;
  }
  for (const field of ['minReplicas', 'maxReplicas'] as const) {
    if (next[field] === undefined)
      return { path: field, message: 'is required when autoscalingMode is horizontal' };
  }
  if (minReplicas! > maxReplicas!) {
    return changed.has('minReplicas')
      ? { path: 'minReplicas', message: 'must not exceed maxReplicas' }
      : { path: 'maxReplicas', message: 'must not be less than minReplicas' };
  }
  if (next.minReplicaMemoryGb !== next.maxReplicaMemoryGb) {
    return {
      path: changed.has('minReplicaMemoryGb') ? 'minReplicaMemoryGb' : 'maxReplicaMemoryGb',
      message: 'must equal the other replica memory bound when autoscalingMode is horizontal',
    };
  }
  return undefined;
}

function orderedPair<K extends string>(
  ctx: z.core.$RefinementCtx<unknown>,
  body: Partial<Record<K, number>>,
  minField: K,
  maxField: K,
): void {
  const min = body[minField];
  const max = body[maxField];
  if (min !== undefined && max !== undefined && min > max) {
    ctx.addIssue({ code: 'custom', path: [minField], message: `must not exceed ${maxField}` });
  }
}

export interface OrganizationLimits {
  /** Paid organizations may use the larger memory bounds and the top-tier options. */
  paid: boolean;
}

/**
 * Rules that depend on the organization rather than on the body alone. Returns the first violation as
 * `{path, message}`, or undefined. Shared by the emulator and by anything that pre-checks a request.
 */
export function organizationLimitIssue(
  body: Pick<
    ServiceCreateRequest,
    'maxReplicaMemoryGb' | 'maxTotalMemoryGb' | 'profile' | 'hasTransparentDataEncryption'
  >,
  org: OrganizationLimits,
): { path: string; message: string } | undefined {
  if (org.paid) return undefined;
  if (body.maxReplicaMemoryGb !== undefined && body.maxReplicaMemoryGb > REPLICA_MEMORY.unpaidMax) {
    return {
      path: 'maxReplicaMemoryGb',
      message: `must be at most ${REPLICA_MEMORY.unpaidMax} for non-paid organizations`,
    };
  }
  if (body.maxTotalMemoryGb !== undefined && body.maxTotalMemoryGb > TOTAL_MEMORY.unpaidMax) {
    return {
      path: 'maxTotalMemoryGb',
      message: `must be at most ${TOTAL_MEMORY.unpaidMax} for non-paid organizations`,
    };
  }
  for (const field of ['profile', 'hasTransparentDataEncryption'] as const) {
    if (body[field] !== undefined) {
      return { path: field, message: 'is available only to the top organization tier' };
    }
  }
  return undefined;
}

/** Operation 2 body. */
export const ServiceUpdateRequest = z.strictObject({
  name: ServiceName.optional(),
  ipAccessList: listEdit(IpAccessEntry).optional(),
  privateEndpointIds: listEdit(NonEmptyString).optional(),
  releaseChannel: z.enum(RELEASE_CHANNELS).optional(),
  endpoints: z.array(EndpointToggle).optional(),
  transparentDataEncryptionKeyId: NonEmptyString.optional(),
  tags: listEdit(Tag)
    .refine((edit) => (edit.add?.length ?? 0) <= MAX_TAGS, { error: `must add at most ${MAX_TAGS} tags` })
    .optional(),
});
export type ServiceUpdateRequest = z.infer<typeof ServiceUpdateRequest>;

/**
 * PATCH replicaScaling body (extension): any of the sizing fields, with creation's bounds. The rules that
 * depend on the service (byoc sizes, first in warehouse, unpaid limits) are `sizingIssue` and
 * `organizationLimitIssue`, applied where the service is known.
 */
export const ReplicaScalingRequest = z
  .strictObject(sizingShape)
  .refine((body) => Object.keys(body).length > 0, { error: 'replicaScaling must set at least one field' });
export type ReplicaScalingRequest = z.infer<typeof ReplicaScalingRequest>;

/** Operation 3 body; `awake` is the extension that wakes an idle service. */
export const SERVICE_COMMANDS = ['start', 'stop', 'awake'] as const;
export const ServiceStateRequest = z.strictObject({ command: z.enum(SERVICE_COMMANDS) });
export type ServiceCommand = (typeof SERVICE_COMMANDS)[number];

/** base64 of a SHA-256 digest (32 bytes) and hex of a SHA-1 digest (20 bytes). */
const SHA256_BASE64 = /^[A-Za-z0-9+/]{43}=$/;
const SHA1_HEX = /^[0-9a-fA-F]{40}$/;

/**
 * Password change (extension): `{}` resets to a generated password (returned); `newPasswordHash` (base64 SHA-256
 * of the password) sets one the caller chose without sending it, `newDoubleSha1Hash` (hex SHA-1 of SHA-1, for
 * the MySQL protocol) beside it. The double SHA-1 alone is ignored, as by the real API.
 */
export const PasswordResetRequest = z.strictObject({
  newPasswordHash: z
    .string()
    .regex(SHA256_BASE64, { error: 'must be the base64 of a SHA-256 digest' })
    .optional(),
  newDoubleSha1Hash: z.string().regex(SHA1_HEX, { error: 'must be the hex of a SHA-1 digest' }).optional(),
});
export type PasswordResetRequest = z.infer<typeof PasswordResetRequest>;
/** The answer to `{}`: the generated password. */
export const PasswordResetResult = z.looseObject({ password: z.string() });
/** The answer to a hash: the password was the caller's, so nothing is returned. */
export const PasswordSetResult = z.looseObject({});

export const ServiceEndpoint = z.looseObject({
  protocol: z.string(),
  host: z.string(),
  port: z.number(),
  username: z.string().optional(),
});
export type ServiceEndpoint = z.infer<typeof ServiceEndpoint>;

/** The service object as the API returns it; lenient, so new fields do not break clients. */
export const Service = z.looseObject({
  id: z.string(),
  name: z.string(),
  provider: z.string().optional(),
  region: z.string().optional(),
  tier: z.string().optional(),
  state: z.string().optional(),
  engineVersion: z.string().optional(),
  endpoints: z.array(ServiceEndpoint).optional(),
  minTotalMemoryGb: z.number().optional(),
  maxTotalMemoryGb: z.number().optional(),
  minReplicaMemoryGb: z.number().optional(),
  maxReplicaMemoryGb: z.number().optional(),
  numReplicas: z.number().optional(),
  idleScaling: z.boolean().optional(),
  idleTimeoutMinutes: z.number().optional(),
  autoscalingMode: z.string().optional(),
  minReplicas: z.number().optional(),
  maxReplicas: z.number().optional(),
  ipAccessList: z.array(z.looseObject({ source: z.string(), description: z.string().optional() })).optional(),
  createdAt: z.string().optional(),
  encryptionKey: z.string().optional(),
  encryptionAssumedRoleIdentifier: z.string().optional(),
  iamRole: z.string().optional(),
  privateEndpointIds: z.array(z.string()).optional(),
  availablePrivateEndpointIds: z.array(z.string()).optional(),
  dataWarehouseId: z.string().optional(),
  isPrimary: z.boolean().optional(),
  isReadonly: z.boolean().optional(),
  releaseChannel: z.string().optional(),
  byocId: z.string().optional(),
  hasTransparentDataEncryption: z.boolean().optional(),
  transparentDataEncryptionKeyId: z.string().optional(),
  encryptionRoleId: z.string().optional(),
  profile: z.string().optional(),
  complianceType: z.string().optional(),
  tags: z.array(z.looseObject({ key: z.string(), value: z.string() })).optional(),
});
export type Service = z.infer<typeof Service>;

/** GET privateEndpointConfig (extension). */
export const PrivateEndpointConfig = z.looseObject({
  endpointServiceId: z.string(),
  privateDnsHostname: z.string(),
});
export type PrivateEndpointConfig = z.infer<typeof PrivateEndpointConfig>;

/** Operation 1 result: the only place the initial password ever appears. */
export const ServiceCreateResult = z.looseObject({ service: Service, password: z.string() });
export type ServiceCreateResult = z.infer<typeof ServiceCreateResult>;
