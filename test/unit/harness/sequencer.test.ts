import { describe, expect, it } from 'vitest';
import { CLEARED_LAST_FILES, OWN_NODE_FILES, placeNodeFiles } from '../../harness/sequencer.ts';

const file = (project: string, path: string) => ({ project: { name: project }, moduleId: `/repo/${path}` });
const names = (files: readonly { project: { name: string }; moduleId: string }[]) =>
  files.map((f) => `${f.project.name}:${f.moduleId.slice('/repo/'.length)}`);

describe('the node project’s files in the order', () => {
  const ownNode = file('node', OWN_NODE_FILES[0]!);
  const clearedLast = file('node', CLEARED_LAST_FILES[0]!);
  const pressure = file('node', 'test/integration/node/chart.pressure.test.ts');
  const pod = file('node', 'test/integration/node/chart.pod.test.ts');
  const unit = file('unit', 'test/unit/a.test.ts');
  const cluster = file('cluster', 'test/integration/b.test.ts');

  it('runs the files that start a node of their own first and the release slowest to clear last', () => {
    expect(names(placeNodeFiles([clearedLast, pressure, ownNode, pod]))).toEqual(
      names([ownNode, pressure, pod, clearedLast]),
    );
  });

  it('keeps the other projects’ files in their places and the rest of the node files in their order', () => {
    expect(names(placeNodeFiles([unit, clearedLast, cluster, pod, ownNode, pressure]))).toEqual(
      names([unit, ownNode, cluster, pod, pressure, clearedLast]),
    );
  });
});
