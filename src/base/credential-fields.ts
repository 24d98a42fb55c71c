/**
 * Whether a field holds a credential, judged by its name wherever it appears (a request body, a pipe's
 * `extraSettings`, a drift path): the whole value (object or string) is then kept out of logs, status,
 * Events, errors and the plan.
 *
 * A name is split into words at `_`, `-`, `.`, spaces, camel case and digits (`sasl_password`,
 * `saslPassword`, `SASL_PASSWORD`, `ssl.key.password`). It names a credential when a word, or two
 * neighbouring words read as one, is a credential word (`password`, `secret`, `token`, `credentials`,
 * `api_key`, `private key`, …), or a word ends with one (`dbpassword`, `alertstoken`). A name ending in a
 * word that says what the value points at (`…Id`, `…Name`, `…Ref`, `…Url`, `…Endpoint`, `…Type`, `…File`,
 * `…Path`) names something about a credential, not the credential, and stays readable: `keyId`,
 * `tokenUrl`, `secretName`, `credentialsRef`. `key` alone, or after a word that does not make it a secret
 * (`partition_key`, `sort.key`, a tag's `key`), is no credential, and neither is a list of key ids
 * (`openApiKeys`). A URL's user and password are a credential in a field of any name (`urlCredentials`).
 */

/** Names that are credentials whatever the rule says (the cloud's and HTTP's own). */
const ALWAYS = new Set([
  'authorization',
  'proxy-authorization',
  'keysecret',
  'alertstoken',
  'accesskeyid',
  'x-api-key',
  'cookie',
  'set-cookie',
]);

/** Words (or two neighbouring words read as one) that name a credential. */
const CREDENTIAL_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'secrets',
  'token',
  'tokens',
  'credential',
  'credentials',
  'authorization',
  'cookie',
  'jaas',
  'userinfo',
  'connectionstring',
  'dsn',
  'apikey',
  'accesskey',
  'secretkey',
  'privatekey',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'sharedkey',
  'accountkey',
  'sslkey',
  'keystorekey',
  'tlskey',
  'clientkey',
  'authkey',
  'sessionkey',
]);

/** Endings of one word that glues a credential word to another (`dbpassword`, `alertstoken`). */
const GLUED = /(password|passwd|passphrase|secret|token|credentials?)$/;

/** A last word saying what the value points at: the name is about a credential, not one. */
const ABOUT = new Set([
  'id',
  'ids',
  'name',
  'names',
  'ref',
  'url',
  'uri',
  'endpoint',
  'type',
  'file',
  'path',
]);

/** The words of a field name, lower case. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])([0-9])|([0-9])([a-zA-Z])/g, '$1$3 $2$4')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** Whether a field of this name holds a credential wherever it appears (its whole value). */
export function isCredentialField(name: string): boolean {
  if (ALWAYS.has(name.toLowerCase())) return true;
  const words = nameWords(name);
  if (words.length === 0 || ABOUT.has(words.at(-1)!)) return false;
  return words.some(
    (word, i) =>
      CREDENTIAL_WORDS.has(word) || GLUED.test(word) || (i > 0 && CREDENTIAL_WORDS.has(words[i - 1]! + word)),
  );
}

/**
 * The userinfo of a URL (`scheme://user:password@host`, `scheme://token@host`): a credential whatever the
 * field holding the URL is called. The last `@` before the path ends it, as URL parsers read it.
 */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]+)@/gi;

/** `text` with the userinfo of every URL in it replaced by `replacement`. */
export function withoutUrlCredentials(text: string, replacement: string): string {
  return text.includes('://') ? text.replace(URL_USERINFO, `$1${replacement}@`) : text;
}

/**
 * The credentials in the URLs of `text`: each password (after the user's `:`), or the whole userinfo when
 * it has no user (a token). User names alone are left: they are no secret, and scrubbing them would shred
 * ordinary words.
 */
export function urlCredentials(text: string): string[] {
  if (!text.includes('://')) return [];
  return [...text.matchAll(URL_USERINFO)].map(([, , userinfo]) => {
    const colon = userinfo!.indexOf(':');
    return colon < 0 ? userinfo! : userinfo!.slice(colon + 1);
  });
}
