# syntax=docker/dockerfile:1
# The sluice operator image: compiled JavaScript and production dependencies only, on Node 24 LTS, as a
# non-root user, with no shell at run time (distroless). scripts/image-layout.ts builds the same layout without
# a Docker engine by running these steps, and the image test starts it under Node 24.

# The base images are build arguments: the defaults are what users build from; a builder that reaches no
# registry names bases made locally (--build-arg BUILD_BASE=... --build-arg RUNTIME_BASE=...).
ARG BUILD_BASE=node:24-bookworm-slim
ARG RUNTIME_BASE=gcr.io/distroless/nodejs24-debian12:nonroot

FROM ${BUILD_BASE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM ${RUNTIME_BASE}
WORKDIR /app
ENV NODE_ENV=production
# glibc's malloc tuned for a long-running process with bursts (bench:memory runs the operator with this ENV):
# two arenas instead of eight per core, and every block of 64 KB or more (socket reads, response bodies) mapped
# on its own and unmapped when freed, instead of held in the heap where the burst's holes stay resident.
ENV MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# distroless's nonroot user; the chart's pod security context runs as the same uid.
USER 65532:65532
EXPOSE 8080 8081
# A young generation of 2 MB instead of V8's default 16 MB per semi-space: the operator keeps few short-lived
# objects, and at 10,000 objects this is tens of MB of RSS (bench:memory runs the operator with these flags).
ENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=2", "/app/bin/sluice.js"]
CMD ["run"]
