import { describe, expect, it } from 'vitest';
import {
  renderTemplate,
  templateProblem,
  urlquery,
} from '../../../../src/kinds/shared/connection-template.ts';

const details = {
  username: 'default',
  password: 'p@ss w/rd&?=+',
  host: 'abc.eu-central-1.aws.example.dev',
  port: '8443',
  https_host: 'abc.eu-central-1.aws.example.dev',
  https_port: '8443',
  nativesecure_port: '9440',
};

describe('renderTemplate', () => {
  it('replaces each placeholder with its detail, with or without spaces', () => {
    const { values } = renderTemplate(
      { ADDRESS: '{{.host}}:{{ .port }}', NATIVE: 'tcp://{{ .host }}:{{  .nativesecure_port  }}' },
      details,
    );
    expect(values).toEqual({
      ADDRESS: 'abc.eu-central-1.aws.example.dev:8443',
      NATIVE: 'tcp://abc.eu-central-1.aws.example.dev:9440',
    });
  });

  it('escapes with urlquery as Go’s url.QueryEscape does, so a password fits in a URL', () => {
    const { values } = renderTemplate(
      { DATABASE_URL: 'https://{{ .username }}:{{ .password | urlquery }}@{{ .host }}:{{ .port }}' },
      details,
    );
    expect(values.DATABASE_URL).toBe(
      'https://default:p%40ss+w%2Frd%26%3F%3D%2B@abc.eu-central-1.aws.example.dev:8443',
    );
    expect(urlquery("a!b'c(d)e*f~g-h_i.j")).toBe('a%21b%27c%28d%29e%2Af~g-h_i.j');
  });

  it('never renders a key named like a connection key (stored before admission refused it)', () => {
    const template = { password: '{{ .password | urlquery }}', https_host: 'x', URL: '{{ .host }}' };
    expect(renderTemplate(template, details).values).toEqual({ URL: details.host });
  });

  it('leaves text without placeholders, and single braces, as they are', () => {
    expect(renderTemplate({ A: 'plain', B: '{x} {{ .port }}' }, details).values).toEqual({
      A: 'plain',
      B: '{x} 8443',
    });
  });

  it('leaves out a key naming a detail the service does not have, and says which', () => {
    expect(
      renderTemplate({ MYSQL: '{{ .mysql_host }}:{{ .mysql_port }}', PORT: '{{ .port }}' }, details),
    ).toEqual({
      values: { PORT: '8443' },
      unresolved: ['MYSQL'],
    });
  });

  it('follows the details: a new host or password renders a new value', () => {
    const template = { URL: 'https://{{ .username }}:{{ .password | urlquery }}@{{ .host }}' };
    const before = renderTemplate(template, details).values.URL;
    const after = renderTemplate(template, { ...details, host: 'new.example.dev', password: 'next' }).values
      .URL;
    expect(before).not.toBe(after);
    expect(after).toBe('https://default:next@new.example.dev');
  });

  it('refuses an unknown placeholder or filter, naming it, without rendering anything', () => {
    expect(() => renderTemplate({ URL: '{{ .user }}' }, details)).toThrow(
      'connectionSecret.template.URL: unknown placeholder {{ .user }}',
    );
    expect(() => renderTemplate({ URL: '{{ .password | b64enc }}' }, details)).toThrow(
      'connectionSecret.template.URL: unknown filter in {{ .password | b64enc }}',
    );
  });
});

describe('templateProblem (the admission rules, in TypeScript)', () => {
  it.each([
    ['{{ .host }}:{{ .port }}', undefined],
    ['{{ .password | urlquery }}', undefined],
    ['{{ .mysql_host }}', undefined],
    ['{{ .Host }}', 'unknown placeholder {{ .Host }}'],
    ['{{ host }}', 'unknown placeholder {{ host }}'],
    ['{{ .host', 'unknown placeholder {{ .host'],
    ['{{ .host | upper }}', 'unknown filter in {{ .host | upper }}'],
    ['{{ .host | urlquery | urlquery }}', 'unknown filter in {{ .host | urlquery | urlquery }}'],
  ])('%s → %s', (template, problem) => {
    expect(templateProblem(template)).toBe(problem);
  });
});
