/**
 * The real API's official client (its Terraform provider), run unchanged by OpenTofu against the emulator.
 *
 * OpenTofu is built from its Go module by `npm run envtest:setup` (test/envtest/tofu) into the control plane's
 * cache when SLUICE_CLICKHOUSE_PROVIDER is set. The provider's module is not served by the Go module proxy, so it is not built there: a binary of it
 * is taken from SLUICE_CLICKHOUSE_PROVIDER, else from `terraform-provider-clickhouse` beside OpenTofu. It runs
 * through a dev_overrides CLI configuration, so no registry is asked for anything.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { assetsDir } from '../../../tools/cluster/assets.ts';

/** The provider's address: `source` in the configuration, and the key of its dev override. */
export const PROVIDER_SOURCE = 'registry.terraform.io/clickhouse/clickhouse';
const PROVIDER_BINARY = 'terraform-provider-clickhouse';

export interface OfficialClient {
  tofu: string;
  provider: string;
}

/** Where the two binaries are, or why the lifecycle cannot run here (said in the skipped test's name). */
export function findOfficialClient(): OfficialClient | { missing: string } {
  const tofu = join(assetsDir(), 'tofu');
  const provider = resolve(process.env.SLUICE_CLICKHOUSE_PROVIDER ?? join(assetsDir(), PROVIDER_BINARY));
  if (!existsSync(tofu))
    return {
      missing: `no OpenTofu at ${tofu} (npm run envtest:setup builds it when SLUICE_CLICKHOUSE_PROVIDER is set)`,
    };
  if (!existsSync(provider)) {
    return {
      missing:
        `no ${PROVIDER_BINARY} at ${provider} (the Go module proxy does not serve its module; ` +
        'set SLUICE_CLICKHOUSE_PROVIDER to a binary of it, v3.20 or newer)',
    };
  }
  return { tofu, provider };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A working directory with its own CLI configuration, state and configuration file. */
export class TofuDir {
  private constructor(
    readonly dir: string,
    private readonly tofu: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async create(client: OfficialClient): Promise<TofuDir> {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-tofu-'));
    const plugins = join(dir, 'plugins');
    await mkdir(plugins);
    // dev_overrides wants a directory holding the binary under its own name.
    await symlink(client.provider, join(plugins, PROVIDER_BINARY));
    const cliConfig = join(dir, 'cli.tfrc');
    await writeFile(
      cliConfig,
      `provider_installation {\n  dev_overrides {\n    "${PROVIDER_SOURCE}" = "${plugins}"\n  }\n  direct {}\n}\n`,
    );
    const work = join(dir, 'work');
    await mkdir(work);
    // Only what OpenTofu needs: the provider reads CLICKHOUSE_* and CLICKSTACK_* variables, none may leak in.
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      TF_CLI_CONFIG_FILE: cliConfig,
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      CHECKPOINT_DISABLE: '1',
    };
    return new TofuDir(work, client.tofu, env);
  }

  /** Writes the configuration (JSON syntax) that the next commands read. */
  async configure(config: object): Promise<void> {
    await writeFile(join(this.dir, 'main.tf.json'), JSON.stringify(config, null, 2));
  }

  run(...args: string[]): Promise<Run> {
    return new Promise((done, fail) => {
      const child = spawn(this.tofu, [...args, '-no-color'], { cwd: this.dir, env: this.env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', fail);
      child.once('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    });
  }

  /** `plan -detailed-exitcode`: 0 no changes, 2 changes, 1 an error. */
  plan(): Promise<Run> {
    return this.run('plan', '-detailed-exitcode');
  }

  /** The resources a plan would change, each with its actions (`update`, `create`, …) and changed attributes. */
  async plannedChanges(): Promise<Map<string, { actions: string[]; attributes: string[] }>> {
    const planned = await this.run('plan', '-out=planned');
    if (planned.code !== 0) throw new Error(`tofu plan failed: ${output(planned)}`);
    const { code, stdout, stderr } = await this.run('show', '-json', 'planned');
    if (code !== 0) throw new Error(`tofu show failed: ${stderr}`);
    const plan = JSON.parse(stdout) as {
      resource_changes?: Array<{
        address: string;
        change: {
          actions: string[];
          before: Record<string, unknown> | null;
          after: Record<string, unknown> | null;
        };
      }>;
    };
    const changes = (plan.resource_changes ?? []).filter((r) => r.change.actions.join() !== 'no-op');
    return new Map(
      changes.map(({ address, change }) => {
        const keys = new Set([...Object.keys(change.before ?? {}), ...Object.keys(change.after ?? {})]);
        const attributes = [...keys].filter(
          (key) => JSON.stringify(change.before?.[key]) !== JSON.stringify(change.after?.[key]),
        );
        return [address, { actions: change.actions, attributes: attributes.sort() }];
      }),
    );
  }

  /** Each managed resource's attributes by address, as `tofu show -json` reads the state. */
  async state(): Promise<Map<string, Record<string, unknown>>> {
    const { code, stdout, stderr } = await this.run('show', '-json');
    if (code !== 0) throw new Error(`tofu show failed: ${stderr}`);
    const shown = JSON.parse(stdout) as {
      values?: { root_module?: { resources?: Array<{ address: string; values: Record<string, unknown> }> } };
    };
    const resources = shown.values?.root_module?.resources ?? [];
    return new Map(resources.map((r) => [r.address, r.values]));
  }

  /** The state file as written: what a secret must never appear in. */
  stateFile(): Promise<string> {
    return readFile(join(this.dir, 'terraform.tfstate'), 'utf8');
  }

  async remove(): Promise<void> {
    await rm(resolve(this.dir, '..'), { recursive: true, force: true });
  }
}

/** A run's output for an assertion message. */
export const output = (run: Run) => `exit ${run.code}\n${run.stdout}\n${run.stderr}`;
