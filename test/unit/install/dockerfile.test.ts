// The Dockerfile names its base images through build arguments, so a builder that reaches no registry (the
// one-node cluster's buildah) builds the same Dockerfile from bases made locally; users get today's bases.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { imageBuildArgs } from '../../../scripts/image-layout.ts';

const dockerfile = readFileSync(join(import.meta.dirname, '..', '..', '..', 'Dockerfile'), 'utf8');

describe('Dockerfile base images', () => {
  it('are build arguments whose defaults are Node 24 on Debian to build and distroless Node 24 to run', () => {
    expect(imageBuildArgs()).toEqual({
      BUILD_BASE: 'node:24-bookworm-slim',
      RUNTIME_BASE: 'gcr.io/distroless/nodejs24-debian12:nonroot',
    });
  });

  it('are what every stage starts FROM', () => {
    const froms = dockerfile.split('\n').filter((line) => line.startsWith('FROM '));
    expect(froms).toEqual(['FROM ${BUILD_BASE} AS build', 'FROM ${RUNTIME_BASE}']);
  });
});
