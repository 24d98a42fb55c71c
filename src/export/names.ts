/** Kubernetes object names for exported objects: derived from the cloud's names, valid and unique per kind. */

/** Kept to a DNS label's length, so names derived from them (`<name>-connection`) stay valid too. */
const MAX_NAME = 63;

/** `Orders EU (prod)` → `orders-eu-prod`; `fallback` when nothing usable is left. */
export function objectNameFrom(text: string, fallback: string): string {
  const name = text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_NAME)
    .replace(/^-+|-+$/g, '');
  return name || fallback;
}

/** Hands out names per kind, suffixing `-2`, `-3`, … when a derived name is taken. */
export class NameRegistry {
  private readonly taken = new Map<string, Set<string>>();

  take(kind: string, text: string, fallback: string): string {
    const used = this.taken.get(kind) ?? new Set<string>();
    this.taken.set(kind, used);
    const base = objectNameFrom(text, fallback);
    let name = base;
    for (let n = 2; used.has(name); n++) {
      const suffix = `-${n}`;
      name = `${base.slice(0, MAX_NAME - suffix.length).replace(/-+$/, '')}${suffix}`;
    }
    used.add(name);
    return name;
  }
}
