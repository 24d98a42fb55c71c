/**
 * `fn` over `items` with at most `concurrency` calls at once, taken in order: the results keep the items'
 * order. `onDone` hears each result with how many are done, for progress lines.
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
  onDone?: (result: R, item: T, done: number) => void,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const item = items[index]!;
      results[index] = await fn(item);
      onDone?.(results[index], item, ++done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
