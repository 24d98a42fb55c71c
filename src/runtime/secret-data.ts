/** A Secret's `data` is base64 on the wire; sluice works with the plain strings. */
export const encodeSecretData = (values: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));

export const decodeSecretData = (values: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
