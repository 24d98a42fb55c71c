// The node project's one node cluster (test/harness/node-global-setup.ts), as a test file takes it: its release
// on the shared node with an emulator of its own. The release stays when the file is done: the next file's
// request clears it, and the run's end stops the node with it.
import { request } from 'node:http';
import { inject } from 'vitest';
import {
  chartOn,
  nodeClusterOf,
  type ChartOnNode,
  type ChartOnNodeOptions,
  type NodeClusterHandle,
} from '../../../tools/cluster/chart-on-node.ts';

function nodeUrl(): string {
  const url = inject('sluiceNodeUrl');
  if (!url) throw new Error('no shared node (is test/harness/node-global-setup.ts wired into vitest?)');
  return url;
}

/**
 * The chart on the run's node cluster (started now if no file has asked yet, else cleared of the last file's
 * release). `stop()` stops the emulator: call it in afterAll.
 */
export async function chartOnSharedNode(
  opts: Pick<ChartOnNodeOptions, 'rateLimit' | 'transitionMs' | 'log'> = {},
): Promise<ChartOnNode> {
  const handle = JSON.parse(await ask('GET')) as NodeClusterHandle;
  return chartOn(nodeClusterOf(handle), opts);
}

/** Stops the shared node cluster, for a file that starts the machine's one node itself. */
export async function yieldSharedNode(): Promise<void> {
  await ask('DELETE');
}

/** One request to the global setup, with no time limit: a first GET waits for the image's build. */
function ask(method: 'GET' | 'DELETE'): Promise<string> {
  return new Promise((resolve, reject) => {
    request(nodeUrl(), { method }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(body)
          : reject(new Error(`${method} the shared node cluster: ${body}`)),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
