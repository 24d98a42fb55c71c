import { API_KEY_POLICY, ApiKeySpec, ApiKeyStatus, NEXT_KEY_ID } from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import type { ApiKey } from './schema.ts';

/** The ApiKey kind: everything sluice knows of it but its cloud client, which is loaded on first use. */
export const apiKeyKind = defineKind<ApiKey>({
  // Its own reasons, and what the common ones mean for it; the kind's page lists them (npm run generate).
  reasons: {
    Expired: {
      condition: 'Ready=False',
      end: 'terminal',
      kstatus: 'Failed',
      argocd: 'Degraded',
      means: "the key's `expireAt` has passed: it authenticates no more",
    },
    RoleNotAllowed: {
      condition: 'Synced=False',
      end: 'terminal',
      kstatus: 'Failed',
      argocd: 'Degraded',
      means:
        "`spec.roles` names a role the administrator's allow-list (`--api-key-roles`) does not give the namespace: nothing is created or changed",
    },
    OperatorKey: {
      condition: 'Synced=False',
      end: 'terminal',
      kstatus: 'Failed',
      argocd: 'Degraded',
      means:
        "the cloud key is the one sluice signs in with (the operator's, or this object's credentials): no write reaches it, and deleting the object leaves it",
    },
    SecretNotWritable: { means: 'the credentials Secret cannot be written: no key is made' },
    SecretConflict: { means: 'a Secret of that name belongs to something else' },
  },
  policyFields: API_KEY_POLICY,
  kind: 'ApiKey',
  plural: 'apikeys',
  singular: 'apikey',
  shortNames: [],
  description:
    'A management API key, managed by sluice: its secret is made by sluice and kept only in the Secret spec.credentialsSecret names.',
  spec: ApiKeySpec,
  status: ApiKeyStatus,
  printerColumns: [
    { name: 'State', type: 'string', jsonPath: '.status.state' },
    { name: 'Suffix', type: 'string', jsonPath: '.status.keySuffix' },
    { name: 'Secret', type: 'string', jsonPath: '.spec.credentialsSecret.name' },
  ],
  // The key's credentials Secret is its connection Secret: the secret only sluice ever knew lives there.
  connectionSecret: {
    name: (resource) => resource.spec.credentialsSecret.name,
    requiredKeys: ['keyId', 'keySecret'],
    // Objects signing in with the key go first when it is deleted: deleting it earlier locks them out.
    usersAreDependants: true,
  },
  // An ApiKey signs in only with the credentials it states, never with a key an ApiKey makes.
  makesCredentials: { identityKeys: ['keyId', NEXT_KEY_ID] },
  // Keys are read with a GET each: a drift check of one key does not wait for the organization's list.
  driftReads: () => [{ api: 'management' }],
  exportStep: () => import('./export.ts').then((module) => module.apiKeyExport),
  controller: () => import('./controller.ts').then((module) => module.apiKeyController),
});
