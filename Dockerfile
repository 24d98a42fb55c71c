# syntax=docker/dockerfile:1
# The sluice operator image: compiled JavaScript and production dependencies only, on Node 24 LTS, as a
# non-root user, with no shell at run time (distroless). scripts/image-layout.ts builds the same layout without
# a Docker engine by running these steps, and the image test starts it under Node 24.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM gcr.io/distroless/nodejs24-debian12:nonroot
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# distroless's nonroot user; the chart's pod security context runs as the same uid.
USER 65532:65532
EXPOSE 8080 8081
ENTRYPOINT ["/nodejs/bin/node", "/app/bin/sluice.js"]
CMD ["run"]
