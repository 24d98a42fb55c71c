import { afterAll, beforeAll } from 'vitest';

/**
 * A value the enclosing suite (a file or a `describe`) starts in its `beforeAll` and stops in its `afterAll`,
 * handed out at once so hooks and tests use it by name, as if it had been there from the start. Reading it
 * before it is started (at the file's top level, say) fails naming `what`. Methods are bound to the value
 * itself, so class instances with private fields work through it.
 */
export function suiteValue<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (value: T) => unknown,
  timeoutMs?: number,
): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await start();
  }, timeoutMs);
  afterAll(async () => {
    if (current) await stop(current);
    current = undefined;
  });
  const started = (): T => {
    if (!current) throw new Error(`${what} is started in beforeAll: use it in hooks and tests`);
    return current;
  };
  return new Proxy({} as T, {
    get(_, key) {
      const value = started();
      const member: unknown = Reflect.get(value, key);
      return typeof member === 'function' ? member.bind(value) : member;
    },
    set: (_, key, member) => Reflect.set(started(), key, member),
    has: (_, key) => Reflect.has(started(), key),
  });
}
