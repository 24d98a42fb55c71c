import { byNameThenId, type OrganizationExport } from '../shared/export-step.ts';
import { CREDENTIALS_KEYS, exportApiKey } from './mapping.ts';
import { unmarkedName } from './owner-mark.ts';

/**
 * A key's owner record is a digest on its name, which names no cluster: keys are exported only for a whole
 * organization (by their names without the mark), never their secrets. The key
 * the export itself uses is left out (its Secret exists already, outside sluice).
 */
export const apiKeyExport: OrganizationExport = {
  scope: 'organization',
  position: 0,
  run: async (walk) => {
    if (walk.tags !== undefined || walk.ownedBy !== undefined) return;
    const management = walk.management;
    const keys = (await walk.call(management.listApiKeys())).filter(
      (key) => !management.usesKeySuffix(key.keySuffix),
    );
    keys.sort(byNameThenId((k) => k.name));
    walk.progress(`listed ${keys.length} API key${keys.length === 1 ? '' : 's'}`);
    for (const key of keys) {
      let secretName = '';
      const name = walk.named('ApiKey', unmarkedName(key.name), key.id, 'api-key', (keyName) => {
        secretName = `${keyName}-credentials`;
        return exportApiKey(key, secretName);
      });
      if (name) {
        walk.secretToCreate({
          name: secretName,
          keys: CREDENTIALS_KEYS.filter((k) => k === 'keyId' || k === 'keySecret'),
          usedBy: `ApiKey ${name} (spec.credentialsSecret: the key's secret is never exported; sluice writes organizationId and managementUrl into this Secret, keyId and keySecret must be provided, or the key rotated)`,
        });
      }
    }
  },
};
