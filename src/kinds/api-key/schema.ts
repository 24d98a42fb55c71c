import { z } from 'zod';
import { STATUS_BOUNDS, type ManagedObject, type ReferenceList } from '../../managed/index.ts';
import { API_KEY_ROLES } from '../../cloud/schemas/api-key.ts';
import { LocalObjectReference, managedSpecFields, managedStatusFields } from '../shared/common.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { withRules } from '../shared/meta.ts';
import { IpAccessEntry } from '../database-service/schema.ts';

// The spec is the key create body of the management API under the same names, plus the Secret sluice keeps
// the key in. Every field can change in place (PATCH); the secret itself never appears in the object.

/** RFC 3339 with a zone, written without backslashes so it needs no escaping in a CEL string. */
const RFC3339 =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$';

/** A Go duration of hours, minutes and seconds (`720h`, `90m`), as CEL's `duration()` reads it. */
const GO_DURATION = '^([0-9]+h)?([0-9]+m)?([0-9]+s)?$';

/** A duration field checked at admission: the format and its bounds, with a message naming the field. */
const boundedDuration = (field: string, min: string, max: string, what: string) =>
  withRules(z.string().max(16).describe(`${what} A duration like 720h, 90m or 30s; ${min} to ${max}.`), {
    rule: `self.matches('${GO_DURATION}') && self != '' && duration(self) >= duration('${min}') && duration(self) <= duration('${max}')`,
    message: `rotation.${field} must be a duration of hours, minutes or seconds from ${min} to ${max}, e.g. 720h`,
  }).optional();

/** Bounds of `spec.rotation`: a key lives at least an hour; the old key lasts at most a day past a rotation. */
export const ROTATION_BOUNDS = {
  every: { min: '1h', max: '8760h' },
  gracePeriod: { min: '10s', max: '24h' },
} as const;

const Rotation = z
  .object({
    every: boundedDuration(
      'every',
      ROTATION_BOUNDS.every.min,
      ROTATION_BOUNDS.every.max,
      'Rotate the key when it is this old (counted from its creation in the cloud); absent: only when the annotation sluice.dev/rotate gets a new value.',
    ),
    gracePeriod: boundedDuration(
      'gracePeriod',
      ROTATION_BOUNDS.gracePeriod.min,
      ROTATION_BOUNDS.gracePeriod.max,
      'How long the previous key keeps working once the Secret holds the new one, so every consumer switches first; default 10m.',
    ),
  })
  .describe('Key rotation: a new key in the Secret, the previous one deleted after the grace period.');

const ApiKeyFields = z.object({
  name: z.string().min(1).max(50).describe('The key name in the cloud, up to 50 characters.'),
  roles: z
    .array(z.enum(API_KEY_ROLES).describe('A role.'))
    .min(1)
    .max(API_KEY_ROLES.length)
    .meta({ 'x-kubernetes-list-type': 'set' })
    .describe(
      `What the key may do: ${API_KEY_ROLES.join(', ')} (see docs/kinds/api-key.md for what each allows); at least one.`,
    ),
  expireAt: withRules(z.string().max(64).describe('When the key stops working (RFC 3339); absent: never.'), {
    rule: `self.matches('${RFC3339}')`,
    message: 'expireAt must be an RFC 3339 time with a zone, e.g. 2027-01-31T00:00:00Z',
  }).optional(),
  state: z
    .enum(['enabled', 'disabled'])
    .optional()
    .describe('enabled (the default) or disabled: a disabled key is refused (401) until enabled again.'),
  ipAccessList: z
    .array(IpAccessEntry)
    .max(100)
    .optional()
    .describe('Addresses the key may be used from; absent or empty: any.'),
  credentialsSecret: z
    .object({
      name: LocalObjectReference.shape.name.describe(
        'Name of the Secret in this namespace that sluice writes the key into.',
      ),
    })
    .describe(
      'The Secret sluice writes the key into, with organizationId, keyId, keySecret and managementUrl: usable as it is as the credentialsRef of other objects. Written before the key is created, so its secret is never lost.',
    ),
  rotation: Rotation.optional(),
  ...managedSpecFields('Delete'),
  credentialsRef: managedSpecFields('Delete').credentialsRef.describe(
    "A Secret in this namespace with the key this ApiKey signs in with to make and manage its key (it needs a role that may manage keys, admin): never the Secret it writes, nor one holding a key an ApiKey makes. Absent: the operator's credentials. An ApiKey never uses the namespace's default sluice-credentials: a namespace default added later moves no ApiKey onto another key.",
  ),
  operatorCredentials: z
    .boolean()
    .optional()
    .describe(
      "true: sign in with the operator's credentials, said explicitly (what an ApiKey without spec.credentialsRef does). Not together with spec.credentialsRef.",
    ),
});

/** What an ApiKey's spec must say of the credentials it signs in with, checked at admission. */
const CREDENTIALS_RULES = [
  {
    rule: '!has(self.credentialsRef) || self.credentialsRef.name != self.credentialsSecret.name',
    message:
      'spec.credentialsRef must not name spec.credentialsSecret: an ApiKey never signs in with the key it manages',
  },
  {
    rule: '!has(self.credentialsRef) || !has(self.operatorCredentials) || !self.operatorCredentials',
    message: 'spec.credentialsRef and spec.operatorCredentials: true name two credentials: set one',
  },
  {
    rule: 'has(self.credentialsRef) || !has(self.operatorCredentials) || self.operatorCredentials',
    message:
      'spec.operatorCredentials: false needs spec.credentialsRef: the credentials this ApiKey signs in with',
  },
];

/** The fields a field policy may name, those the cloud fixes at creation and the shared lists. */
export const API_KEY_POLICY = policyFields(ApiKeyFields.omit({ rotation: true }), {
  fixed: [],
  additive: {},
});

export const ApiKeySpec = withRules(
  ApiKeyFields.extend({
    fieldPolicy: fieldPolicySchema('ApiKey', API_KEY_POLICY),
  }).describe('The desired management API key.'),
  ...CREDENTIALS_RULES,
);
export type ApiKeySpec = z.infer<typeof ApiKeySpec>;

export const ApiKeyStatus = z
  .object({
    ...managedStatusFields,
    keyId: z
      .string()
      .max(64)
      .optional()
      .describe("The key's id in the API (what a QueryEndpoint's openApiKeys names); never its secret."),
    keySuffix: z
      .string()
      .max(8)
      .optional()
      .describe('The last 4 letters of the key id used to authenticate.'),
    state: z.string().max(16).optional().describe('enabled or disabled, as the cloud reports it.'),
    expireAt: z.string().max(64).optional().describe('When the key expires, as the cloud reports it.'),
    lastRotation: z
      .string()
      .max(STATUS_BOUNDS.recordedAnnotation + 8)
      .optional()
      .describe('The value of the annotation sluice.dev/rotate whose rotation was made.'),
    previousKeyId: z
      .string()
      .max(64)
      .optional()
      .describe(
        'The key a rotation replaced: it still works until previousKeyDeleteAt, then sluice deletes it.',
      ),
    previousKeyDeleteAt: z
      .string()
      .max(64)
      .optional()
      .describe('When the previous key is deleted: the grace period after the Secret was given the new key.'),
  })
  .describe('What sluice last observed of the key.');
export type ApiKeyStatus = z.infer<typeof ApiKeyStatus>;

/** An ApiKey object as the operator reads it. */
export interface ApiKey extends ManagedObject {
  spec: ApiKeySpec;
  status?: ApiKeyStatus;
}

/**
 * ApiKey objects another kind names (a QueryEndpoint's `apiKeyRefs`): each is waited for until sluice made
 * its key (its id in status); a disabled key is still that key, so it is used as it is.
 */
export function apiKeyReferences<R extends ManagedObject>(
  name: string,
  objectNames: (resource: R) => string[],
): ReferenceList<R> {
  return { name, kind: 'ApiKey', objectNames };
}

/** The Secret keys that hold the key a rotation makes, written before its create (never read by clients). */
export const NEXT_KEY_ID = 'nextKeyId';
export const NEXT_KEY_SECRET = 'nextKeySecret';
