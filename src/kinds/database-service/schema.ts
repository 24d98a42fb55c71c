import { z } from 'zod';
import { externalIdOf, STATUS_BOUNDS, type ManagedObject, type ReferenceList } from '../../managed/index.ts';
import {
  AUTOSCALING_MODES,
  AUTOSCALING_REPLICAS,
  BYOC_REPLICA_MEMORY,
  COMPLIANCE_TYPES,
  IDLE_TIMEOUT_MINUTES_MIN,
  MAX_TAGS,
  NUM_REPLICAS,
  PROFILES,
  PROVIDER_REGIONS,
  PROVIDERS,
  REGIONS,
  RELEASE_CHANNELS,
  REPLICA_MEMORY,
  ServiceName,
  TIERS,
  TOGGLEABLE_ENDPOINT_PROTOCOLS,
  TOTAL_MEMORY,
} from '../../cloud/schemas/service.ts';
import {
  BACKUP_PERIOD_HOURS,
  BACKUP_RETENTION_HOURS,
  SCALING_ENTRY_NAME_MAX,
  SCALING_SCHEDULE_MAX_ENTRIES,
  scheduleIssues,
  UPGRADE_WINDOW_DURATION_HOURS,
  UPGRADE_WINDOW_START_HOURS,
  upgradeWindowShape,
} from '../../cloud/schemas/lifecycle.ts';
import {
  managedSpecFields,
  managedStatusFields,
  ObjectName,
  secretRecordStatusFields,
} from '../shared/common.ts';
import {
  MAX_TEMPLATE_KEYS,
  MAX_TEMPLATE_LENGTH,
  TEMPLATE_DETAILS,
  TEMPLATE_KEY_RULE,
  templateKeyProblem,
  TEMPLATE_RULES,
} from '../shared/connection-template.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { immutable, withRules } from '../shared/meta.ts';

/**
 * A value not yet in `status.passwordReset` asks for a new password once; an adopted service's password is
 * never reset otherwise.
 */
export const RESET_PASSWORD_ANNOTATION = 'sluice.dev/reset-password';
/** In CEL: the provider `self.region` belongs to (aws unless it is one of the gcp or azure regions). */
const REGION_PROVIDER = (['gcp', 'azure'] as const)
  .map(
    (provider) =>
      `self.region in ${JSON.stringify(PROVIDER_REGIONS[provider]).replaceAll('"', "'")} ? '${provider}' : `,
  )
  .join('')
  .concat("'aws'");

// The spec mirrors the service creation body of the management API under the same names, so the contract's
// bounds are enforced at admission by the same constants the emulator and clients use.

const memory = (bounds: { min: number; max: number; step: number }, what: string) =>
  z
    .number()
    .int()
    .min(bounds.min)
    .max(bounds.max)
    .multipleOf(bounds.step)
    .describe(`${what} in GiB: ${bounds.min}..${bounds.max}, a multiple of ${bounds.step}.`);

export const IpAccessEntry = z
  .object({
    source: withRules(z.string().max(64).describe('An IP address or CIDR range allowed to connect.'), {
      rule: 'isIP(self) || isCIDR(self)',
      message: 'source must be an IP address or CIDR range',
    }),
    description: z.string().max(255).optional().describe('What this entry is for.'),
  })
  .describe('One allowed address range.');

const ServiceTag = z
  .object({
    key: z.string().min(1).max(128).describe('Tag key.'),
    value: z.string().max(256).describe('Tag value.'),
  })
  .describe('A tag on the cloud service.');

const EndpointToggle = z
  .object({
    protocol: z.enum(TOGGLEABLE_ENDPOINT_PROTOCOLS).describe('The endpoint protocol to switch.'),
    enabled: z.boolean().describe('Whether the endpoint is on.'),
  })
  .describe('Enables or disables one optional endpoint.');

const byocMemory = BYOC_REPLICA_MEMORY.join(', ');

const replicaBound = (what: string) =>
  z
    .number()
    .int()
    .min(AUTOSCALING_REPLICAS.min)
    .max(AUTOSCALING_REPLICAS.max)
    .optional()
    .describe(
      `${what} replica count of horizontal autoscaling, ${AUTOSCALING_REPLICAS.min}..${AUTOSCALING_REPLICAS.max}; only with autoscalingMode horizontal.`,
    );

const PasswordSecretReference = z
  .object({
    name: ObjectName.describe('Name of a Secret in the same namespace.'),
    key: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[-._a-zA-Z0-9]+$/)
      .describe('The key of the Secret that holds the password.'),
  })
  .describe('A key of a Secret in the same namespace.');

const ConnectionSecretSpec = z
  .object({
    name: ObjectName.optional().describe(
      'Name of the Secret in this namespace. Defaults to <metadata.name>-connection.',
    ),
    template: z
      .record(
        z
          .string()
          .min(1)
          .max(253)
          .regex(/^[-._a-zA-Z0-9]+$/)
          .describe('A Secret key.'),
        withRules(
          z.string().max(MAX_TEMPLATE_LENGTH).describe('The value, with {{ .detail }} placeholders.'),
          ...TEMPLATE_RULES,
        ),
      )
      // What admission's rule says, for `sluice plan -f`, which checks specs with these schemas alone.
      .superRefine((template, ctx) => {
        for (const key of Object.keys(template)) {
          const problem = templateKeyProblem(key);
          if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
        }
      })
      .meta({
        maxProperties: MAX_TEMPLATE_KEYS,
        // The CRD has no place for the key pattern: a rule says it.
        'x-kubernetes-validations': [
          {
            rule: "self.all(k, k.matches('^[-._a-zA-Z0-9]+$'))",
            message: 'every key must be a Secret key: letters, digits, -, _ and .',
          },
          TEMPLATE_KEY_RULE,
        ],
      })
      .optional()
      .describe(
        `Further keys rendered from the connection details, in External Secrets Operator's syntax: {{ .detail }} for ${TEMPLATE_DETAILS.join(', ')}, and the filter urlquery ({{ .password | urlquery }}). E.g. DATABASE_URL: "https://{{ .username }}:{{ .password | urlquery }}@{{ .host }}:{{ .port }}". Rendered again whenever a detail changes.`,
      ),
  })
  .describe(
    'The Secret sluice writes the connection details to (username, password, host, port, one host/port per protocol), and keys rendered from them.',
  );

const BackupPolicy = withRules(
  z
    .object({
      periodInHours: withRules(
        z
          .number()
          .int()
          .refine((hours) => (BACKUP_PERIOD_HOURS as readonly number[]).includes(hours), {
            error: `must be one of ${BACKUP_PERIOD_HOURS.join(', ')}`,
          }),
        {
          rule: `self in [${BACKUP_PERIOD_HOURS.join(', ')}]`,
          message: `periodInHours must be one of ${BACKUP_PERIOD_HOURS.join(', ')}`,
        },
      )
        .optional()
        .describe(
          `Hours between two backups: one of ${BACKUP_PERIOD_HOURS.join(', ')} (the cloud defaults to 24).`,
        ),
      retentionInHours: z
        .number()
        .int()
        .min(BACKUP_RETENTION_HOURS.min)
        .max(BACKUP_RETENTION_HOURS.max)
        .multipleOf(BACKUP_RETENTION_HOURS.step)
        .optional()
        .describe(
          `How long each backup is kept, in hours: whole days, ${BACKUP_RETENTION_HOURS.min}..${BACKUP_RETENTION_HOURS.max} (1 to 45 days; the cloud defaults to 24).`,
        ),
      startTime: z
        .string()
        .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/)
        .optional()
        .describe('HH:MM in UTC: one backup a day starting then (periodInHours is then 24).'),
    })
    .describe(
      "The service's backup policy. A field left out is the cloud's to choose; a change made elsewhere is put back (or reported under fieldPolicy).",
    ),
  {
    rule: '!has(self.startTime) || !has(self.periodInHours) || self.periodInHours == 24',
    message:
      'periodInHours must be 24 (or left out) when startTime is set: a start time means one backup a day',
    fieldPath: '.periodInHours',
  },
);

const hour = (what: string, min: number, max: number) =>
  z.number().int().min(min).max(max).describe(`${what} hour in UTC, ${min}..${max}.`);

const ScalingWindow = withRules(
  z
    .object({
      name: z
        .string()
        .min(1)
        .max(SCALING_ENTRY_NAME_MAX)
        .describe('What the window is for, e.g. Business hours.'),
      weekdays: z
        .array(z.number().int().min(0).max(6).describe('0 is Sunday, 6 Saturday.'))
        .min(1)
        .max(7)
        .describe('The days the window starts on.'),
      startHourUtc: hour('Start', 0, 23),
      endHourUtc: hour('End', 1, 24).describe(
        'End hour in UTC, 1..24; before startHourUtc the window wraps past midnight into the next day (22 to 6).',
      ),
      autoscalingMode: z
        .enum(AUTOSCALING_MODES)
        .optional()
        .describe(
          'vertical (a fixed replica count, minReplicas equal to maxReplicas; the default) or horizontal.',
        ),
      minReplicas: z
        .number()
        .int()
        .min(AUTOSCALING_REPLICAS.min)
        .max(AUTOSCALING_REPLICAS.max)
        .optional()
        .describe('Lowest replica count while the window is active.'),
      maxReplicas: z
        .number()
        .int()
        .min(AUTOSCALING_REPLICAS.min)
        .max(AUTOSCALING_REPLICAS.max)
        .optional()
        .describe('Highest replica count while the window is active.'),
      minReplicaMemoryGb: memory(REPLICA_MEMORY, 'Minimum memory per replica while active').optional(),
      maxReplicaMemoryGb: memory(REPLICA_MEMORY, 'Maximum memory per replica while active').optional(),
      idleScaling: z
        .boolean()
        .optional()
        .describe('Whether the service may idle while the window is active.'),
      idleTimeoutMinutes: z
        .number()
        .int()
        .min(IDLE_TIMEOUT_MINUTES_MIN)
        .optional()
        .describe(`Minutes without queries before idling, at least ${IDLE_TIMEOUT_MINUTES_MIN}.`),
    })
    .describe('A weekly window with its own sizing.'),
  {
    rule: 'self.startHourUtc != self.endHourUtc',
    message: 'endHourUtc must differ from startHourUtc',
    fieldPath: '.endHourUtc',
  },
  {
    rule: 'has(self.minReplicas) == has(self.maxReplicas) && (!has(self.minReplicas) || self.minReplicas <= self.maxReplicas)',
    message: 'minReplicas and maxReplicas go together, minReplicas not above maxReplicas',
    fieldPath: '.minReplicas',
  },
  {
    rule: "(has(self.autoscalingMode) && self.autoscalingMode == 'horizontal') || !has(self.minReplicas) || self.minReplicas == self.maxReplicas",
    message: 'maxReplicas must equal minReplicas for a vertical entry (a fixed replica count)',
    fieldPath: '.maxReplicas',
  },
  {
    rule: 'has(self.minReplicaMemoryGb) == has(self.maxReplicaMemoryGb)',
    message: 'maxReplicaMemoryGb must be set together with minReplicaMemoryGb',
    fieldPath: '.maxReplicaMemoryGb',
  },
);

const ScalingSchedule = z
  .array(ScalingWindow)
  .max(SCALING_SCHEDULE_MAX_ENTRIES)
  // No two windows may share an hour of the week: what the cloud refuses, `sluice plan -f` says first.
  .superRefine((windows, ctx) => scheduleIssues(windows, ctx, []))
  .describe(
    `Weekly windows (at most ${SCALING_SCHEDULE_MAX_ENTRIES}, none overlapping another) in which the service runs with other replicas and memory; outside them the spec's sizing applies. While a window is active, drift checks compare sizing with the window and never undo it. Needs the organization's scheduled scaling feature.`,
  );

const UpgradeWindowSpec = z
  .object({
    weekday: upgradeWindowShape.weekday.describe('The day the window starts: 0 is Sunday, 6 Saturday.'),
    startHourUtc: withRules(upgradeWindowShape.startHourUtc, {
      rule: `self in [${UPGRADE_WINDOW_START_HOURS.join(', ')}]`,
      message: `startHourUtc must be one of ${UPGRADE_WINDOW_START_HOURS.join(', ')}`,
    }).describe(
      `The hour in UTC the window starts: one of ${UPGRADE_WINDOW_START_HOURS.join(', ')}; it lasts ${UPGRADE_WINDOW_DURATION_HOURS} hours.`,
    ),
  })
  .describe(
    "The weekly window in which the cloud may upgrade the service (primary services only). Needs the organization's scheduled upgrades feature.",
  );

const RestoreSpec = z
  .object({
    fromBackupOf: ObjectName.describe(
      'A DatabaseService in this namespace: the service is created from its latest finished backup (same region and tier as that service). Until it exists in the cloud and has a finished backup, the create waits.',
    ),
  })
  .describe(
    "Create the service from another DatabaseService's backup, named by the service instead of by backupId. Read once, at create: the backup used is recorded in status.restoredFromBackup, and a later change of spec.restore does nothing (a restore never runs twice).",
  );

const HORIZONTAL = "has(self.autoscalingMode) && self.autoscalingMode == 'horizontal'";

/**
 * Fields the API offers no way to change after create (api-behaviour.md), plus the deprecated totals and the
 * profile. The sizing fields are not here: they change in place through the replicaScaling operation.
 */
export const IMMUTABLE_SERVICE_FIELDS = [
  'provider',
  'region',
  'tier',
  'byocId',
  'encryptionKey',
  'encryptionAssumedRoleIdentifier',
  'backupId',
  'dataWarehouseId',
  'isReadonly',
  'complianceType',
  'hasTransparentDataEncryption',
  'profile',
  'minTotalMemoryGb',
  'maxTotalMemoryGb',
] as const;

export const DESIRED_SERVICE_STATES = ['Running', 'Stopped'] as const;

const DatabaseServiceFields = z.object({
  name: ServiceName.describe(
    'The service name in the cloud: letters, digits and spaces, up to 50 characters.',
  ),
  provider: z.enum(PROVIDERS).describe('Cloud provider.'),
  region: z.enum(REGIONS).describe('Region the service runs in.'),
  tier: z.enum(TIERS).optional().describe('Deprecated service tier; accepted for older manifests.'),
  ipAccessList: z
    .array(IpAccessEntry)
    .max(500)
    .optional()
    .describe('Addresses allowed to connect. Edited in place with minimal add/remove changes.'),
  minTotalMemoryGb: memory(TOTAL_MEMORY, 'Deprecated minimum total memory').optional(),
  maxTotalMemoryGb: memory(TOTAL_MEMORY, 'Deprecated maximum total memory').optional(),
  minReplicaMemoryGb: memory(REPLICA_MEMORY, 'Minimum memory per replica').optional(),
  maxReplicaMemoryGb: memory(REPLICA_MEMORY, 'Maximum memory per replica').optional(),
  numReplicas: z
    .number()
    .int()
    .min(NUM_REPLICAS.min)
    .max(NUM_REPLICAS.max)
    .optional()
    .describe(
      `Number of replicas, ${NUM_REPLICAS.min}..${NUM_REPLICAS.max}; at least ${NUM_REPLICAS.firstInWarehouseMin} for the first service in a warehouse.`,
    ),
  idleScaling: z
    .boolean()
    .optional()
    .describe('Whether the service may idle when unused (the cloud defaults to true).'),
  idleTimeoutMinutes: z
    .number()
    .int()
    .min(IDLE_TIMEOUT_MINUTES_MIN)
    .optional()
    .describe(`Minutes without queries before the service idles; at least ${IDLE_TIMEOUT_MINUTES_MIN}.`),
  autoscalingMode: z
    .enum(AUTOSCALING_MODES)
    .optional()
    .describe(
      'vertical scales memory per replica between minReplicaMemoryGb and maxReplicaMemoryGb (the cloud default); horizontal scales the replica count between minReplicas and maxReplicas at one replica size (minReplicaMemoryGb equal to maxReplicaMemoryGb).',
    ),
  minReplicas: replicaBound('Lowest'),
  maxReplicas: replicaBound('Highest'),
  releaseChannel: z.enum(RELEASE_CHANNELS).optional().describe('Upgrade channel; production services only.'),
  endpoints: z.array(EndpointToggle).max(8).optional().describe('Optional endpoints to enable or disable.'),
  privateEndpointIds: z
    .array(z.string().min(1).max(256).describe('A private endpoint id.'))
    .max(100)
    .optional()
    .describe('Private endpoints associated with the service.'),
  dataWarehouseId: z
    .uuid()
    .optional()
    .describe('An existing warehouse to join; without it the service starts its own.'),
  isReadonly: z.boolean().optional().describe('Make the service read-only; true only with dataWarehouseId.'),
  backupId: z.uuid().optional().describe('Create the service from this backup.'),
  restore: RestoreSpec.optional(),
  backups: BackupPolicy.optional(),
  scalingSchedule: ScalingSchedule.optional(),
  upgradeWindow: UpgradeWindowSpec.optional(),
  byocId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe(`Bring-your-own-cloud region id; then replica memory must be one of ${byocMemory}.`),
  encryptionKey: z.string().min(1).max(2048).optional().describe('Customer disk encryption key identifier.'),
  encryptionAssumedRoleIdentifier: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe('Role assumed for disk encryption.'),
  hasTransparentDataEncryption: z
    .boolean()
    .optional()
    .describe('Enable transparent data encryption; top organization tier, at creation only.'),
  transparentDataEncryptionKeyId: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe('Rotate transparent data encryption to this key id.'),
  profile: z.enum(PROFILES).optional().describe('Hardware profile; top organization tier only.'),
  complianceType: z.enum(COMPLIANCE_TYPES).optional().describe('Compliance regime of the service.'),
  tags: z
    .array(ServiceTag)
    .max(MAX_TAGS - 1)
    .optional()
    .describe('Tags on the cloud service (one more, sluice.dev/owner, is added by sluice).'),
  state: z
    .enum(DESIRED_SERVICE_STATES)
    .default('Running')
    .describe('Desired state: Running or Stopped. Defaults to Running.'),
  ...managedSpecFields('Orphan'),
  passwordSecretRef: PasswordSecretReference.optional().describe(
    "The service's password, kept in a Secret you own: sluice sets it in the cloud by hash (the password itself never leaves the cluster) after create and whenever the value changes, and copies it to the connection Secret. Without it the cloud generates the password.",
  ),
  connectionSecret: ConnectionSecretSpec.optional(),
});

/** The fields a field policy may name, those the cloud fixes at creation and the shared lists. */
export const DATABASE_SERVICE_POLICY = policyFields(DatabaseServiceFields, {
  // A restore is create-only by nature: nothing in the cloud to compare it with afterwards.
  fixed: [...IMMUTABLE_SERVICE_FIELDS, 'restore'],
  additive: { ipAccessList: 'source', tags: 'key' },
});

export const DatabaseServiceSpec = withRules(
  DatabaseServiceFields.extend({
    fieldPolicy: fieldPolicySchema('DatabaseService', DATABASE_SERVICE_POLICY),
  }).describe('The desired database service.'),
  {
    rule: `(${REGION_PROVIDER}) == self.provider`,
    message: 'spec.region must be a region of spec.provider',
    messageExpression: `'spec.region ' + self.region + ' is a region of ' + (${REGION_PROVIDER}) + ', not of spec.provider ' + self.provider`,
    fieldPath: '.region',
  },
  {
    rule: '!has(self.isReadonly) || !self.isReadonly || has(self.dataWarehouseId)',
    message: 'isReadonly can be true only when dataWarehouseId is given',
    fieldPath: '.isReadonly',
  },
  {
    rule: `!has(self.byocId) || (has(self.minReplicaMemoryGb) && has(self.maxReplicaMemoryGb) && self.minReplicaMemoryGb in [${byocMemory}] && self.maxReplicaMemoryGb in [${byocMemory}])`,
    message: `minReplicaMemoryGb and maxReplicaMemoryGb are required with byocId and must each be one of ${byocMemory}`,
    fieldPath: '.byocId',
  },
  {
    rule: '!has(self.minReplicaMemoryGb) || !has(self.maxReplicaMemoryGb) || self.minReplicaMemoryGb <= self.maxReplicaMemoryGb',
    message: 'minReplicaMemoryGb must not exceed maxReplicaMemoryGb',
    fieldPath: '.minReplicaMemoryGb',
  },
  {
    rule: '!has(self.minTotalMemoryGb) || !has(self.maxTotalMemoryGb) || self.minTotalMemoryGb <= self.maxTotalMemoryGb',
    message: 'minTotalMemoryGb must not exceed maxTotalMemoryGb',
    fieldPath: '.minTotalMemoryGb',
  },
  {
    rule: `!has(self.numReplicas) || has(self.dataWarehouseId) || self.numReplicas >= ${NUM_REPLICAS.firstInWarehouseMin}`,
    message: `numReplicas must be at least ${NUM_REPLICAS.firstInWarehouseMin} for the first service in a warehouse`,
    fieldPath: '.numReplicas',
  },
  {
    rule: `(!has(self.minReplicas) && !has(self.maxReplicas)) || (${HORIZONTAL})`,
    message: 'minReplicas and maxReplicas are allowed only when autoscalingMode is horizontal',
    fieldPath: '.autoscalingMode',
  },
  {
    rule: `!(${HORIZONTAL}) || (has(self.minReplicas) && has(self.maxReplicas) && self.minReplicas <= self.maxReplicas)`,
    message:
      'autoscalingMode horizontal needs minReplicas and maxReplicas, minReplicas not above maxReplicas',
    fieldPath: '.minReplicas',
  },
  {
    rule: `!(${HORIZONTAL}) || (has(self.minReplicaMemoryGb) && has(self.maxReplicaMemoryGb) && self.minReplicaMemoryGb == self.maxReplicaMemoryGb)`,
    message:
      'autoscalingMode horizontal needs minReplicaMemoryGb and maxReplicaMemoryGb, and they must be equal',
    fieldPath: '.minReplicaMemoryGb',
  },
  {
    rule: '!has(self.restore) || !has(self.backupId)',
    message:
      'restore.fromBackupOf and backupId cannot both be set: name the backup by its DatabaseService or by its id',
    fieldPath: '.restore.fromBackupOf',
  },
  {
    rule: "!has(self.releaseChannel) || !has(self.tier) || self.tier != 'development'",
    message: 'releaseChannel is allowed only for production services',
    fieldPath: '.releaseChannel',
  },
  ...IMMUTABLE_SERVICE_FIELDS.map((field) => immutable(field)),
);
export type DatabaseServiceSpec = z.infer<typeof DatabaseServiceSpec>;

const StatusEndpoint = z
  .object({
    protocol: z.string().max(64).describe('Protocol, e.g. https, nativesecure, mysql.'),
    host: z.string().max(253).describe('Host name.'),
    port: z.number().int().describe('Port.'),
    username: z.string().max(256).optional().describe('User name for this endpoint.'),
  })
  .describe('One endpoint the service answers on.');

export const DatabaseServiceStatus = z
  .object({
    ...managedStatusFields,
    state: z
      .string()
      .max(64)
      .optional()
      .describe("The service's state as the cloud reports it (e.g. running, stopped)."),
    observed: z
      .object({
        numReplicas: z.number().int().optional().describe('Replicas the service runs.'),
        minReplicaMemoryGb: z.number().optional().describe('Lower memory bound per replica, in GiB.'),
        maxReplicaMemoryGb: z.number().optional().describe('Upper memory bound per replica, in GiB.'),
        idleScaling: z.boolean().optional().describe('Whether the service idles when unused.'),
        idleTimeoutMinutes: z.number().int().optional().describe('Minutes unused before it idles.'),
      })
      .optional()
      .describe(
        'The sizing the cloud runs, as last observed: a spec edit to a value the cloud already has moves observedGeneration and sends nothing, and these show it was already so (kubectl get -o wide).',
      ),
    endpoints: z.array(StatusEndpoint).max(16).optional().describe('Endpoints as the cloud reports them.'),
    engineVersion: z.string().max(64).optional().describe('Database engine version.'),
    dataWarehouseId: z.string().max(64).optional().describe('The warehouse the service belongs to.'),
    privateEndpointIds: z
      .array(z.string().max(256).describe('A private endpoint id.'))
      .max(100)
      .optional()
      .describe('Private endpoints as the cloud reports them.'),
    ipAccessList: z
      .array(
        z
          .object({
            source: z.string().max(64).describe('Address or range.'),
            description: z.string().max(255).optional().describe('Description.'),
          })
          .describe('An allowed address range.'),
      )
      .max(500)
      .optional()
      .describe('The IP access list as the cloud reports it.'),
    backups: z
      .object({
        latestBackupId: z.string().max(64).optional().describe('The newest finished backup.'),
        latestBackupTime: z.string().max(64).optional().describe('When the newest finished backup started.'),
        kept: z.number().int().optional().describe('How many backups the cloud keeps now.'),
      })
      .optional()
      .describe(
        "The service's backups as the cloud lists them (spec.backups set), read at the drift interval.",
      ),
    restoredFromBackup: z
      .object({
        id: z.string().max(64).describe('The backup the service was created from.'),
        of: ObjectName.optional().describe(
          'The DatabaseService it was a backup of (spec.restore.fromBackupOf).',
        ),
        serviceId: z.string().max(64).optional().describe("That service's cloud id."),
      })
      .optional()
      .describe(
        'The backup this service was created from (spec.restore or spec.backupId), recorded at create.',
      ),
    activeScalingWindow: z
      .string()
      .max(64)
      .optional()
      .describe(
        'The spec.scalingSchedule window the cloud applies now (its name); absent outside every window, when the spec’s sizing applies.',
      ),
    // The passwordSecretRef Secret's digest: a change of its value sets the new password.
    secretDigests: secretRecordStatusFields.secretDigests,
    passwordReset: z
      .string()
      .max(STATUS_BOUNDS.recordedAnnotation)
      .optional()
      .describe(
        'The value of the sluice.dev/reset-password annotation last acted on (one reset per value; a value over 1024 characters as its sha256: digest).',
      ),
    passwordStoredIn: z
      .string()
      .max(253)
      .optional()
      .describe(
        'The connection Secret sluice keeps the password in: set when sluice generated, reset or was given it; absent while the password is unknown to sluice (an adopted service, until a reset). A Secret that loses the password gets it back by a reset; a renamed one gets it carried over.',
      ),
    passwordResetUnstored: z
      .string()
      .max(64)
      .optional()
      .describe(
        'When a password reset last succeeded in the cloud but its connection Secret write failed: no other reset is made until the spec, the sluice.dev/reset-password annotation or the Secret changes, so a Secret that cannot be written never costs a reset per retry.',
      ),
    passwordResetUnstoredInputs: z
      .string()
      .max(64)
      .optional()
      .describe(
        'A digest of what the user controlled when that reset could not be stored (the spec generation, the sluice.dev/reset-password annotation, the connection Secret version): the next reset waits for one of them to change.',
      ),
    unknownConnectionKeys: z
      .array(z.string().max(64).describe('A key of the connection Secret.'))
      .max(8)
      .optional()
      .describe(
        'Keys the connection Secret lacks because sluice does not know them: the password of an adopted service, until the sluice.dev/reset-password annotation asks for a reset.',
      ),
  })
  .describe('What sluice last observed in the cloud.');
export type DatabaseServiceStatus = z.infer<typeof DatabaseServiceStatus>;

/** A DatabaseService object as the operator reads it. */
export interface DatabaseService extends ManagedObject {
  spec: DatabaseServiceSpec;
  status?: DatabaseServiceStatus;
}

/** The references name of the DatabaseService a restore takes its backup from. */
export const RESTORE_SOURCE = 'restoreSource';

/**
 * spec.restore.fromBackupOf, waited for only until the service exists (or is adopted): a restore is
 * create-only, so its source may change or go away afterwards without holding this object up.
 */
export const restoreSourceReference: ReferenceList<DatabaseService> = {
  name: RESTORE_SOURCE,
  kind: 'DatabaseService',
  objectNames: (resource) => {
    const name = resource.spec.restore?.fromBackupOf;
    const created = resource.status?.id !== undefined || externalIdOf(resource) !== undefined;
    return name === undefined || created ? [] : [name];
  },
};

/** A plain id refused: a wait, which the owner's grant (or the administrator) ends. */
export const PLAIN_ID_REFUSED = {
  condition: 'Ready=False',
  end: 'wait',
  kstatus: 'InProgress',
  argocd: 'Progressing',
} as const;

/** The spec field whose Secret holds the password the cloud takes. */
export const PASSWORD_FIELD = 'passwordSecretRef';
