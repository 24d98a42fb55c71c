// The Argo CD health checks run the way Argo CD runs them: gopher-lua through test/envtest/argocd-health
// (built with the control plane by `npm run envtest:setup`), over every fixture of every kind.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GROUP } from '../../../src/kinds/shared/common.ts';
import { KINDS } from '../../../src/kinds/index.ts';
import { healthCasesOf } from '../../../src/install/argocd-fixtures.ts';
import { healthCheckKinds, healthLua } from '../../../src/install/render.ts';
import { runArgoHealthHarness as runHarness } from '../../harness/argocd-health.ts';
import { repoRoot } from '../../../tools/cluster/assets.ts';

const customizations = join(repoRoot, 'deploy', 'argocd', 'resource_customizations');

describe('Argo CD health checks under gopher-lua (Lua 5.1, as Argo CD runs argocd-cm scripts)', () => {
  const results = runHarness(customizations);
  const cases = KINDS.flatMap((schema) => healthCasesOf(schema).map((c) => ({ kind: schema.kind, ...c })));

  it.each(cases)('$kind $name: $expected.status "$expected.message"', ({ kind, name, expected }) => {
    const result = results.find(
      (r) => r.dir === `${GROUP}/${kind}` && r.inputPath === `testdata/${name}.yaml`,
    );
    expect(result, 'the harness ran this fixture').toBeDefined();
    expect(result!.error).toBeUndefined();
    expect(result!.actual).toEqual(expected);
  });

  it('ran every fixture listed and no other', () => {
    expect(results).toHaveLength(cases.length);
  });

  it('covers every health state: Healthy, Progressing, Degraded, Suspended and Pending deletion', () => {
    const shown = new Set(results.map((r) => r.actual?.status));
    for (const status of ['Healthy', 'Progressing', 'Degraded', 'Suspended']) expect(shown).toContain(status);
    expect(results.filter((r) => r.actual?.message === 'Pending deletion')).toHaveLength(
      healthCheckKinds().length,
    );
  });

  it('the argocd-cm snippet holds the same script under every kind', () => {
    const cm = parse(readFileSync(join(repoRoot, 'deploy', 'argocd', 'argocd-cm.yaml'), 'utf8')) as {
      data: Record<string, string>;
    };
    expect(Object.keys(cm.data).sort()).toEqual(
      healthCheckKinds()
        .map((kind) => `resource.customizations.health.${GROUP}_${kind}`)
        .sort(),
    );
    for (const script of Object.values(cm.data)) expect(script).toBe(healthLua());
  });

  describe('the harness itself', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sluice-argocd-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    it('reports a status Argo CD does not know as Unknown, and a script error as an error, as Argo CD does', () => {
      const kindDir = join(scratch, 'example.com', 'Thing');
      mkdirSync(join(kindDir, 'testdata'), { recursive: true });
      writeFileSync(join(kindDir, 'testdata', 'a.yaml'), 'kind: Thing\nmetadata: {name: a}\n');
      writeFileSync(join(kindDir, 'testdata', 'b.yaml'), 'kind: Thing\nmetadata: {name: b}\n');
      writeFileSync(
        join(kindDir, 'health_test.yaml'),
        'tests:\n- {healthStatus: {status: Healthy}, inputPath: testdata/a.yaml}\n- {healthStatus: {status: Healthy}, inputPath: testdata/b.yaml}\n',
      );
      // string.upper is not there: Argo CD gives argocd-cm scripts no string library.
      writeFileSync(
        join(kindDir, 'health.lua'),
        'if obj.metadata.name == "a" then return {status = "Fine"} end\nreturn {status = string.upper("x")}\n',
      );
      const [a, b] = runHarness(scratch);
      expect(a!.actual).toEqual({ status: 'Unknown', message: 'Lua returned an invalid health status' });
      expect(b!.error).toMatch(/string/);
    });
  });
});
