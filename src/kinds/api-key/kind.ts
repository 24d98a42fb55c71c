import { API_KEY_POLICY, ApiKeySpec, ApiKeyStatus, NEXT_KEY_ID, type ApiKey } from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { apiKeyReasons } from './reasons.ts';

/** The ApiKey kind, as the registry lists it; its controller and export step are loaded on first use. */
export const apiKeyKind = defineKind<ApiKey>({
  reasons: apiKeyReasons,
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
    specField: 'credentialsSecret',
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
