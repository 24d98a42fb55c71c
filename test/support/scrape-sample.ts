/** One sample's value in a Prometheus text scrape, by metric name and exact label set (undefined: absent). */
export function sampleValue(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',').filter(Boolean);
    if (have.length === wanted.length && wanted.every((w) => have.includes(w))) return Number(match[3]);
  }
  return undefined;
}
