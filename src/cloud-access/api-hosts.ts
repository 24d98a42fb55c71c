/**
 * The hosts a resource's own credentials Secret may send the operator to. Without a limit, anyone who can
 * write a Secret and a sluice object in a namespace could make the operator call any host from its network
 * position (and read part of the answer back from status).
 *
 * An entry is `host` or `host:port`, where host is a DNS name, an IPv4 address or a bracketed IPv6 address,
 * optionally `*.` + a domain (any name below it); `*` alone allows every host. It binds the scheme too: an
 * entry allows https only, unless it starts with `http://` (then plain http only), so a Secret cannot send
 * the credentials in clear text to a host listed for https. An entry without a port matches the scheme's
 * default port only (443 for https, 80 for http).
 */
export type AllowedHosts = readonly string[];

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const ENTRY = new RegExp(
  `^(https?://)?(\\*|((\\*\\.)?${LABEL}(\\.${LABEL})*|\\[[0-9a-f:.]+\\])(:[0-9]{1,5})?)$`,
);

/** Why `entry` is no valid allow-list entry, or undefined. */
export function allowedHostProblem(entry: string): string | undefined {
  const port = /:([0-9]+)$/.exec(entry)?.[1];
  if (!ENTRY.test(entry) || (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65_535))) {
    return `"${entry}" is not a host, host:port, *.domain or * (for plain http: http://host…)`;
  }
  return undefined;
}

/** The allow-list entry that admits exactly `url`'s scheme, host and port (for the operator's own URLs). */
export function entryFor(url: string): string | undefined {
  const parsed = parseHttpUrl(url);
  if (!parsed) return undefined;
  const host = parsed.host.toLowerCase();
  return parsed.protocol === 'http:' ? `http://${host}` : host;
}

/**
 * Why `url` may not be called under `allowed` (a sentence naming the host), or undefined when it may. A URL
 * that is not http(s) is refused whatever the list says.
 */
export function hostRefusal(url: string, allowed: AllowedHosts): string | undefined {
  const parsed = parseHttpUrl(url);
  if (!parsed) return 'is not an http(s) URL';
  if (allowed.some((entry) => matches(entry, parsed))) return undefined;
  const clear = parsed.protocol === 'http:' ? ' over plain http' : '';
  return `names host ${parsed.host}${clear}, which the operator may not call`;
}

function matches(listed: string, url: URL): boolean {
  const plain = listed.toLowerCase().startsWith('http://');
  if ((url.protocol === 'http:') !== plain) return false;
  const entry = listed.replace(/^https?:\/\//i, '');
  if (entry === '*') return true;
  const split = /^(.*?)(?::([0-9]+))?$/.exec(entry.toLowerCase())!;
  const [, name, port = ''] = split;
  // URL drops a default port (https://h:443 → port ''), so an entry without one matches the default only.
  const effectivePort = port === defaultPort(url) ? '' : port;
  if (effectivePort !== url.port) return false;
  const hostname = url.hostname.toLowerCase();
  if (name!.startsWith('*.')) return hostname.endsWith(name!.slice(1)) && hostname.length > name!.length - 1;
  return hostname === name;
}

const defaultPort = (url: URL) => (url.protocol === 'https:' ? '443' : '80');

function parseHttpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}
