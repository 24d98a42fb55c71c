import type { AlertingConfig } from '../cloud/alerting-client.ts';
import type { ManagementConfig } from '../cloud/management-client.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { kubeRequestJson } from '../kube/kube-http.ts';
import { decodeSecretData } from '../kube/secret-data.ts';

/**
 * The keys of a credentials Secret (the operator's, a resource's own via spec.credentialsRef, or the one
 * `sluice plan` and `sluice export` read): the one place they are named and turned into client configuration.
 */
export const CREDENTIAL_KEYS = {
  management: ['organizationId', 'keyId', 'keySecret', 'managementUrl'],
  alerting: ['alertsUrl', 'alertsToken'],
} as const;

export type CloudApiName = keyof typeof CREDENTIAL_KEYS;
type CredentialKey = (typeof CREDENTIAL_KEYS)[CloudApiName][number];
/** A credentials Secret's data, or the same keys given as flags. */
export type CredentialData = Partial<Record<CredentialKey | (string & {}), string>>;

/** The keys `api` needs that `data` lacks (an empty value counts as missing). */
export function missingKeys(data: CredentialData, api: CloudApiName): CredentialKey[] {
  return CREDENTIAL_KEYS[api].filter((key) => !data[key]);
}

/** The management client's configuration; call only when `missingKeys(data, 'management')` is empty. */
export function managementConfig(data: CredentialData): ManagementConfig {
  return {
    baseUrl: data.managementUrl!,
    organizationId: data.organizationId!,
    keyId: data.keyId!,
    keySecret: data.keySecret!,
  };
}

/** The alerting client's configuration; call only when `missingKeys(data, 'alerting')` is empty. */
export function alertingConfig(data: CredentialData): AlertingConfig {
  return { baseUrl: data.alertsUrl!, token: data.alertsToken! };
}

/** The flags that stand in for a credentials Secret (`--organization`, `--key-id`, …), as its data. */
export function credentialsFromFlags(flags: {
  organization?: string | undefined;
  keyId?: string | undefined;
  keySecret?: string | undefined;
  managementUrl?: string | undefined;
  alertsUrl?: string | undefined;
  alertsToken?: string | undefined;
}): CredentialData {
  const data: CredentialData = {
    organizationId: flags.organization,
    keyId: flags.keyId,
    keySecret: flags.keySecret,
    managementUrl: flags.managementUrl,
    alertsUrl: flags.alertsUrl,
    alertsToken: flags.alertsToken,
  };
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
}

/** A credentials Secret's data, read once from the cluster (a command's `--credentials-secret`). */
export async function readCredentialsSecret(
  access: KubeAccess,
  { namespace, name }: { namespace: string; name: string },
): Promise<Record<string, string>> {
  const secret = await kubeRequestJson<{ data?: Record<string, string> }>(access, {
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`,
  }).catch((error: unknown) => {
    throw new Error(`cannot read Secret ${namespace}/${name}: ${(error as Error).message}`);
  });
  return decodeSecretData(secret.data ?? {});
}
