# syntax=docker/dockerfile:1
# a2a-operator image: Node 24 LTS, the bundled CLI and nothing else of npm's, non-root, read-only root
# filesystem friendly (the operator writes nothing; /tmp is the only writable path it could
# use, and the chart mounts an emptyDir there).

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts ./scripts/
COPY src ./src
RUN npm run build

FROM node:24-bookworm-slim
LABEL org.opencontainers.image.title="a2a-operator" \
      org.opencontainers.image.description="Probes A2A agents against their AgentCards and routes only verified interfaces" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/a2a-operator/a2a-operator"
ENV NODE_ENV=production
WORKDIR /app
# The CLI is one bundle with its dependencies (scripts/build.ts): no node_modules at run time.
COPY --from=build /src/dist/cli ./dist/cli
COPY package.json ./
COPY crds ./crds
# Numeric UID/GID so Kubernetes can verify runAsNonRoot (the chart runs as 65532 too).
USER 65532:65532
EXPOSE 8080 8081
# node is PID 1: it installs no default signal handlers, but `run` handles SIGTERM/SIGINT
# itself (finishes in-flight reconciles, releases the Lease, exits 0), so no init is needed.
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["run"]
