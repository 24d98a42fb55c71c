/**
 * Field names whose values are credentials wherever they appear: the whole value (object or string) is
 * replaced. Matched case-insensitively against the key name.
 */
export const SECRET_KEY =
  /^(authorization|proxy-authorization|password|keysecret|secretkey|secret|token|alertstoken|credentials|accesskey|accesskeyid|apikey|api_key|x-api-key|cookie|set-cookie|connectionstring)$/i;

/** Whether a field of this name holds a credential wherever it appears (its whole value). */
export const isCredentialField = (key: string): boolean => SECRET_KEY.test(key);
