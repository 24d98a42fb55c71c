// vitest globalSetup of the node project: one node cluster (control plane, node, the operator's image) for the
// whole run instead of one per file. The image's build starts at once; the node starts when a file first asks for
// it (meanwhile the build goes on), and each file then installs its release. A release is cleared when the next
// file asks for the node (`clearRelease`), not when its own file ends: the run's end stops the node instead, so
// the last release is never cleared (test/harness/sequencer.ts puts the costliest to clear last). A file that
// needs the machine's one node to itself (it stops or crashes a node of its own) asks for the shared one to be
// stopped first; the next file that asks starts it again.
//
// The files run in worker processes and ask over HTTP on loopback (vitest's provide() carries only values):
// GET /node clears the last release (or starts the node cluster if needed) and answers its handle, DELETE /node
// stops it. The files run one after another (the project has no file parallelism), so one request is served at
// a time.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import {
  clearRelease,
  nodeClusterHandle,
  startNodeCluster,
  type NodeCluster,
} from '../../tools/cluster/chart-on-node.ts';
import { operatorImage, type OperatorImage } from '../../tools/cluster/image.ts';
import { node24 } from '../../tools/cluster/node24.ts';
import { nodeSkipReason } from '../integration/node/support.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the node project's shared node cluster; null when the node cannot run here. */
    sluiceNodeUrl: string | null;
  }
}

const log = (msg: string) => console.log(`[shared node] ${msg}`);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (nodeSkipReason()) {
    project.provide('sluiceNodeUrl', null);
    return async () => {};
  }
  // The build, begun before any file runs; the node cluster loads the archive it leaves (or finds cached).
  const unused = new AbortController();
  let image: Promise<OperatorImage> | undefined = operatorImage({
    node: node24(),
    log,
    signal: unused.signal,
  });
  image.catch(() => undefined);
  let cluster: NodeCluster | undefined;
  let queue = Promise.resolve();

  const acquire = async (): Promise<NodeCluster> => {
    if (cluster) {
      const started = Date.now();
      try {
        await clearRelease(cluster, log);
        log(`release cleared in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } catch (error) {
        log(`the last release was not cleared (${String(error)}): starting the node cluster afresh`);
        await stop();
      }
    }
    if (!cluster) {
      const started = Date.now();
      // A build begun at setup is awaited here, after the node has started beside it.
      const building = image;
      image = undefined;
      cluster = await startNodeCluster({ log, ...(building ? { image: building } : {}) });
      log(`node cluster ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    return cluster;
  };
  const stop = async () => {
    const stopping = cluster;
    cluster = undefined;
    await stopping?.cp.stop();
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const answer = async () => {
      if (request.method === 'GET') return nodeClusterHandle(await acquire());
      if (request.method === 'DELETE') return void (await stop());
      throw new Error(`${request.method} is not served`);
    };
    // One at a time: a request waits for the one before it.
    queue = queue.then(() =>
      answer().then(
        (body) =>
          void response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(body ?? {})),
        (error: unknown) => void response.writeHead(500).end(String((error as Error)?.stack ?? error)),
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('sluiceNodeUrl', `http://127.0.0.1:${(server.address() as AddressInfo).port}/node`);
  return async () => {
    server.close();
    await queue;
    await stop();
    // No file asked for the node (only node.smoke ran, say): the build is not waited for.
    unused.abort();
    await image?.catch(() => undefined);
  };
}
