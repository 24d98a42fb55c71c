import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { useAdmission } from './admission.ts';

const valid = { name: 'analytics', provider: 'aws', region: 'us-east-1' };
const withTemplate = (template: Record<string, string>) => ({ ...valid, connectionSecret: { template } });

describe.skipIf(clusterSkipReason())('DatabaseService connectionSecret.template admission', () => {
  const api = useAdmission('DatabaseService', 'tpl');

  it('accepts every connection detail, the urlquery filter, and text around them', async () => {
    const answer = await api.admit({
      ...valid,
      connectionSecret: {
        name: 'app-db',
        template: {
          DATABASE_URL:
            'https://{{ .username }}:{{ .password | urlquery }}@{{ .host }}:{{ .port }}/?secure=1',
          NATIVE: '{{.nativesecure_host}}:{{ .nativesecure_port }}',
          MYSQL_HOST: '{{ .mysql_host }}',
          PLAIN: 'no placeholder at all',
        },
      },
    });
    expect(answer).toBe('accepted');
    expect(await api.admit({ ...valid, connectionSecret: { template: {} } })).toBe('accepted');
  });

  it.each([
    [
      { URL: 'https://{{ .user }}@{{ .host }}' },
      'template[URL]: Invalid value: \\"string\\": unknown placeholder {{ .user }}',
    ],
    [
      { URL: '{{ .host }}', DSN: '{{ .Password }}' },
      'template[DSN]: Invalid value: \\"string\\": unknown placeholder {{ .Password }}',
    ],
    [{ URL: '{{ host }}' }, 'unknown placeholder {{ host }}'],
    [{ URL: '{{ .host' }, 'unknown placeholder'],
    [
      { URL: '{{ .password | b64enc }}' },
      'template[URL]: Invalid value: \\"string\\": unknown filter in {{ .password | b64enc }}',
    ],
    [
      { URL: '{{ .password | urlquery | urlquery }}' },
      'unknown filter in {{ .password | urlquery | urlquery }}',
    ],
  ])('refuses %j naming %s', async (template, named) => {
    const answer = await api.admit(withTemplate(template));
    expect(answer).not.toBe('accepted');
    expect(answer).toContain(named);
  });

  it.each(['password', 'username', 'host', 'port', 'https_host', 'mysql_port'])(
    'refuses the template key %s, a connection key it would overwrite, naming the key',
    async (key) => {
      const answer = await api.admit(
        withTemplate({ URL: '{{ .host }}', [key]: '{{ .password | urlquery }}' }),
      );
      expect(answer).not.toBe('accepted');
      expect(answer).toContain(`template key ${key} is a connection key`);
    },
  );

  it('accepts keys only named like connection keys in another case or with more around them', async () => {
    const template = { PASSWORD: '{{ .password }}', db_password: '{{ .password }}', HOST_1: '{{ .host }}' };
    expect(await api.admit(withTemplate(template))).toBe('accepted');
  });

  it('refuses a template key that is no Secret key, naming the field', async () => {
    const answer = await api.admit(withTemplate({ 'not a key': '{{ .host }}' }));
    expect(answer).toContain('every key must be a Secret key');
  });
});
