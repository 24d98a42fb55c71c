import { describe, expect, it } from 'vitest';
import { allowedHostProblem, entryFor, hostRefusal } from '../../../src/cloud-access/api-hosts.ts';

const allowed = (url: string, list: string[]) => hostRefusal(url, list) === undefined;

describe('API host allow-list', () => {
  it('allows a listed host on its scheme’s default port, and a listed host:port', () => {
    expect(allowed('https://api.example.com/v1', ['api.example.com'])).toBe(true);
    expect(allowed('https://API.Example.com:443', ['api.example.com'])).toBe(true);
    expect(allowed('https://api.example.com:8443', ['api.example.com'])).toBe(false);
    expect(allowed('https://api.example.com:8443', ['api.example.com:8443'])).toBe(true);
    expect(allowed('https://api.example.com', ['api.example.com:443'])).toBe(true);
    expect(allowed('http://127.0.0.1:4010', ['http://127.0.0.1:4010'])).toBe(true);
    expect(allowed('http://127.0.0.1:4011', ['http://127.0.0.1:4010'])).toBe(false);
    expect(allowed('http://[::1]:4010', ['http://[::1]:4010'])).toBe(true);
    expect(allowed('http://api.example.com', ['http://api.example.com'])).toBe(true);
  });

  it('binds the scheme: an entry allows https only, one starting with http:// plain http only', () => {
    expect(hostRefusal('http://api.example.com', ['api.example.com'])).toBe(
      'names host api.example.com over plain http, which the operator may not call',
    );
    expect(allowed('http://api.example.com:443', ['api.example.com'])).toBe(false);
    expect(allowed('http://127.0.0.1:4010', ['127.0.0.1:4010'])).toBe(false);
    expect(allowed('http://eu.example.com', ['*.example.com'])).toBe(false);
    expect(allowed('http://anything.at.all', ['*'])).toBe(false);
    expect(allowed('https://api.example.com', ['http://api.example.com'])).toBe(false);
    expect(allowed('https://api.example.com', ['https://api.example.com'])).toBe(true);
    expect(allowed('http://anything.at.all:1', ['http://*'])).toBe(true);
  });

  it('allows names below a *.domain entry, not the domain itself or a look-alike', () => {
    expect(allowed('https://eu.api.example.com', ['*.example.com'])).toBe(true);
    expect(allowed('https://example.com', ['*.example.com'])).toBe(false);
    expect(allowed('https://evil-example.com', ['*.example.com'])).toBe(false);
    expect(allowed('https://example.com.evil.net', ['*.example.com'])).toBe(false);
  });

  it('refuses every other host, naming it, and anything that is not an http(s) URL', () => {
    expect(hostRefusal('https://169.254.169.254/latest/meta-data', ['api.example.com'])).toBe(
      'names host 169.254.169.254, which the operator may not call',
    );
    expect(hostRefusal('https://api.example.com@evil.net/', ['api.example.com'])).toBe(
      'names host evil.net, which the operator may not call',
    );
    expect(allowed('http://anything.at.all:1', [])).toBe(false);
    expect(hostRefusal('file:///etc/passwd', ['*'])).toBe('is not an http(s) URL');
    expect(hostRefusal('not a url', ['*'])).toBe('is not an http(s) URL');
    expect(allowed('https://anything.at.all:1', ['*'])).toBe(true);
  });

  it('derives the entry of the operator’s own URL', () => {
    expect(entryFor('https://api.example.com/v1')).toBe('api.example.com');
    expect(entryFor('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
    expect(entryFor('ftp://x')).toBeUndefined();
  });

  it('checks entries', () => {
    for (const entry of [
      'api.example.com',
      'api.example.com:8443',
      '*.example.com',
      '*',
      '10.0.0.1:80',
      '[::1]:8080',
      'https://api.example.com',
      'http://127.0.0.1:4010',
      'http://*',
    ])
      expect(allowedHostProblem(entry)).toBeUndefined();
    for (const entry of ['ftp://api.example.com', 'api.example.com:99999', 'a/b', '*.', 'ex*.com', 'host:'])
      expect(allowedHostProblem(entry)).toBe(
        `"${entry}" is not a host, host:port, *.domain or * (for plain http: http://host…)`,
      );
  });
});
