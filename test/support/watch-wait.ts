import { CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';

/** Where an object of a custom resource lives. */
export interface ObjectPlace {
  group: string;
  version: string;
  plural: string;
  namespace: string;
  name: string;
}

/**
 * How often a waiter looks at what it holds again without an event: a test may also read state the object's
 * events do not carry (the emulator's store, a clock).
 */
const RECHECK_MS = 250;

/**
 * Waits until `test` holds of the object (undefined while it does not exist) and returns it, watching it
 * instead of polling: one list, then one watch from the list's version, so every version of the object is
 * seen (a state the object passes through is never missed between two reads) and a long wait costs the
 * apiserver one connection, not a request every tenth of a second. A watch that ends is listed and watched
 * again. A timeout shows the last version seen.
 */
export async function untilObject<T>(
  kc: KubeConfig,
  place: ObjectPlace,
  what: string,
  test: (object: T | undefined) => boolean,
  timeoutMs: number,
): Promise<T> {
  const { group, version, plural, namespace, name } = place;
  const api = kc.makeApiClient(CustomObjectsApi);
  const fieldSelector = `metadata.name=${name}`;
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  const timedOut = () =>
    new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(statusOf(last) ?? last ?? null)}`);
  while (Date.now() < deadline) {
    const list = (await api.listNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      fieldSelector,
    })) as {
      items: T[];
      metadata: { resourceVersion: string };
    };
    last = list.items[0];
    if (test(last)) return last!;
    const found = await new Promise<{ object: T } | undefined>((resolve, reject) => {
      let ended = false;
      let watch: AbortController | undefined;
      const end = (result: { object: T } | undefined, error?: unknown) => {
        if (ended) return;
        ended = true;
        clearInterval(recheck);
        watch?.abort();
        if (error) reject(error);
        else resolve(result);
      };
      const judge = () => {
        try {
          if (test(last)) end({ object: last! });
          else if (Date.now() >= deadline) end(undefined, timedOut());
        } catch (error) {
          end(undefined, error);
        }
      };
      const recheck = setInterval(judge, RECHECK_MS);
      new Watch(kc)
        .watch(
          `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
          { fieldSelector, resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: false },
          (phase, object: T) => {
            if (phase === 'ERROR') return end(undefined); // too old a version: list again
            last = phase === 'DELETED' ? undefined : object;
            judge();
          },
          // The watch ended (the server closed it, or it failed): list and watch again.
          () => end(undefined),
        )
        .then(
          (controller) => (ended ? controller.abort() : (watch = controller)),
          () => end(undefined),
        );
    });
    if (found) return found.object;
    // A watch that could not start or ended at once is not retried in a tight loop.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw timedOut();
}

function statusOf(object: unknown): unknown {
  return (object as { status?: unknown } | undefined)?.status;
}
