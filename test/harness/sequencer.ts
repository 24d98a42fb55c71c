// The files' order: vitest's own (failed first, then the slowest), except that in the node project the files
// that start a node of their own come first. The shared node cluster (node-global-setup.ts) then starts once,
// when the first of the others asks, and the operator's image builds while those files run.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files of the node project that stop the shared node cluster to start nodes of their own. */
export const OWN_NODE_FILES = ['test/integration/node/node.smoke.test.ts'];

export class OwnNodeFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const ownsNode = (spec: TestSpecification) => OWN_NODE_FILES.some((file) => spec.moduleId.endsWith(file));
    // The node project's places in the order, refilled with its own-node files first.
    const places = sorted.flatMap((spec, i) => (spec.project.name === 'node' ? [i] : []));
    const nodeFiles = places.map((i) => sorted[i]!);
    const reordered = [...nodeFiles.filter(ownsNode), ...nodeFiles.filter((spec) => !ownsNode(spec))];
    places.forEach((place, i) => (sorted[place] = reordered[i]!));
    return sorted;
  }
}
