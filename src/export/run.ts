import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify, type DocumentOptions, type SchemaOptions, type ToStringOptions } from 'yaml';
import { AlertingClient } from '../cloud/alerting-client.ts';
import { ManagementClient } from '../cloud/management-client.ts';
import { managementSpentNow, QuotaRegistry } from '../cloud/quota.ts';
import { RequestTally } from '../cloud/request-tally.ts';
import {
  alertingConfig,
  credentialsFromFlags,
  managementConfig,
  missingKeys,
  readCredentialsSecret,
  type CredentialData,
} from '../cloud-access/credentials.ts';
import { loadKubeAccess } from '../kube/kube-config.ts';
import { NAMESPACE_CREDENTIALS } from '../managed/index.ts';
import { operatorSettingsFor } from '../command-line/running-settings.ts';
import type { ExportConfig } from './config.ts';
import { readManagedBy, type ManagedBy } from './managed-in-cluster.ts';
import { exportOrganization, type ExportResult, type Manifest } from './export.ts';

/** Runs `sluice export`: manifests to stdout or `--out-dir`, progress and the Secrets to create to stderr. */
export async function runExport(
  config: ExportConfig,
  io: { stdout: (text: string) => void; stderr: (line: string) => void } = {
    stdout: (text) => process.stdout.write(text),
    stderr: (line) => process.stderr.write(`${line}\n`),
  },
): Promise<number> {
  let credentials: CredentialData;
  try {
    credentials = await credentialsOf(config, io.stderr);
  } catch (error) {
    io.stderr(`sluice export: ${(error as Error).message}`);
    return 1;
  }
  const managedBy = config.includeManaged ? undefined : await managedInCluster(config, io.stderr);
  const tally = new RequestTally();
  // The key is often the operator's, whose requests of the last window the server still counts.
  const shared = { quotaRegistry: new QuotaRegistry(undefined, managementSpentNow), hooks: tally.hooks };
  const management = new ManagementClient(managementConfig(credentials), {
    ...shared,
    quota: config.managementQuota,
  });
  // Alerts are exported only with the alerting keys; without them the rest still is.
  const alerting =
    missingKeys(credentials, 'alerting').length === 0
      ? new AlertingClient(alertingConfig(credentials), { ...shared, quota: config.alertingQuota })
      : undefined;
  const started = Date.now();
  let result: ExportResult;
  try {
    result = await exportOrganization({
      management,
      ...(alerting ? { alerting } : {}),
      ...(config.namespace ? { namespace: config.namespace } : {}),
      kinds: config.kinds,
      ...(config.tags ? { tags: config.tags } : {}),
      observe: config.observe,
      ...(config.fieldPolicy ? { fieldPolicy: config.fieldPolicy } : {}),
      ...(config.ownedBy ? { ownedBy: config.ownedBy } : {}),
      ...(config.credentialsRef ? { credentialsRef: config.credentialsRef } : {}),
      ...(managedBy ? { managedBy } : {}),
      progress: io.stderr,
    });
  } catch (error) {
    // Client errors are redacted: no key or token reaches this message.
    io.stderr(`sluice export: ${(error as Error).message} (after ${tally.describe()})`);
    return 1;
  } finally {
    await management.close();
    await alerting?.close();
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.stderr(
    `exported ${result.manifests.length} objects (${result.skipped.length} skipped${result.leftOut.length > 0 ? `, ${result.leftOut.length} already managed here` : ''}) with ${tally.describe()} in ${seconds}s`,
  );
  if (result.leftOut.length > 0) {
    io.stderr(
      `left out ${result.leftOut.length} objects this cluster already manages (applied, each would be refused as AlreadyManaged; --include-managed keeps them):`,
    );
    for (const { kind, id, cloudName, managedBy } of result.leftOut) {
      io.stderr(`  ${kind} ${JSON.stringify(cloudName)} (${id}): managed by ${managedBy}`);
    }
  }
  if (config.outDir) {
    await mkdir(config.outDir, { recursive: true });
    for (const manifest of result.manifests) {
      const file = join(
        config.outDir,
        `${manifest.kind.toLowerCase()}-${manifest.metadata.name}.${config.output}`,
      );
      await writeFile(file, render([manifest], config.output, false));
    }
    io.stderr(`wrote ${result.manifests.length} files to ${config.outDir}`);
  } else {
    io.stdout(render(result.manifests, config.output, true));
  }
  if (result.secrets.length > 0) {
    const where = config.namespace ? ` -n ${config.namespace}` : '';
    io.stderr('create these Secrets before applying (the cloud never returns their values):');
    for (const secret of result.secrets) {
      const literals = secret.keys.map((key) => `--from-literal=${key}=…`).join(' ');
      io.stderr(`  kubectl create secret generic ${secret.name}${where} ${literals}   # ${secret.usedBy}`);
    }
  }
  if (result.withheld.length > 0) {
    io.stderr(
      'left out because they hold credentials (the cloud keeps them; sluice neither reports nor resets them):',
    );
    for (const field of result.withheld) io.stderr(`  ${field}`);
  }
  return result.skipped.length > 0 ? 2 : 0;
}

/**
 * YAML that kubectl reads as written: every string value is quoted. kubectl's YAML resolves plain scalars
 * more eagerly than any schema (YAML 1.1 booleans `yes`/`off`, dates, and whatever Go parses as a number:
 * `0x1F`, `-0o7`, `1_000`), so only a quoted string is sure to stay a string. Keys are plain unless YAML
 * 1.1 would read them as something else (they are sluice's field names).
 */
const KUBECTL_YAML: ToStringOptions & SchemaOptions & DocumentOptions = {
  version: '1.1',
  defaultStringType: 'QUOTE_DOUBLE',
  defaultKeyType: 'PLAIN',
};

/** YAML documents, or JSON: one object, or a kubectl `List` of them when printing. */
function render(manifests: readonly Manifest[], format: 'yaml' | 'json', list: boolean): string {
  if (format === 'json') {
    const value = list ? { apiVersion: 'v1', kind: 'List', items: manifests } : manifests[0];
    return `${JSON.stringify(value, null, 2)}\n`;
  }
  return manifests.map((manifest) => stringify(manifest, KUBECTL_YAML)).join('---\n');
}

/**
 * Which cloud objects sluice objects in the cluster manage already. Without a reachable cluster the export
 * goes on whole and says so: what it cannot check, applying would show (`AlreadyManaged`).
 */
async function managedInCluster(
  config: ExportConfig,
  stderr: (line: string) => void,
): Promise<ManagedBy | undefined> {
  try {
    const { managedBy, count } = await readManagedBy(await loadKubeAccess(config.kubeconfig));
    stderr(`read ${count} cloud ids the cluster's sluice objects manage, to leave them out`);
    return managedBy;
  } catch (error) {
    stderr(
      `not checked for objects the cluster already manages: ${(error as Error).message} (--include-managed exports them knowingly)`,
    );
    return undefined;
  }
}

/**
 * The key to export with: the flags', else the namespace's default credentials Secret (what the exported
 * objects, without credentialsRef, would use), else `--credentials-secret` or the running operator's.
 */
async function credentialsOf(config: ExportConfig, stderr: (line: string) => void): Promise<CredentialData> {
  if (config.organization) return credentialsFromFlags(config);
  const access = await loadKubeAccess(config.kubeconfig);
  // What the exported objects (no credentialsRef) would use: the namespace's default first, as the operator.
  const namespaceDefault =
    !config.credentialsSecret && !config.credentialsRef && config.namespace
      ? await readCredentialsSecret(access, {
          namespace: config.namespace,
          name: NAMESPACE_CREDENTIALS,
        }).catch(() => undefined)
      : undefined;
  if (namespaceDefault) {
    stderr(`credentials: ${config.namespace}/${NAMESPACE_CREDENTIALS} (the namespace's default credentials)`);
  }
  const { credentialsSecret } = namespaceDefault
    ? { credentialsSecret: { namespace: config.namespace!, name: NAMESPACE_CREDENTIALS } }
    : await operatorSettingsFor(access, config, ['credentialsSecret'], stderr);
  if (!credentialsSecret) {
    throw new Error(
      'no credentials: give --credentials-secret, or the key as flags (--organization, --key-id, --key-secret, --management-url) or SLUICE_* variables',
    );
  }
  const { namespace, name } = credentialsSecret;
  const data = namespaceDefault ?? (await readCredentialsSecret(access, credentialsSecret));
  const missing = missingKeys(data, 'management');
  if (missing.length > 0) throw new Error(`Secret ${namespace}/${name} has no key ${missing.join(', ')}`);
  return data;
}
