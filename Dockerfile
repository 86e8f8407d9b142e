# syntax=docker/dockerfile:1
#
# The service's image, in three stages (see README "Deploying"):
#   deps     installs the production dependencies; build tools are there only in case better-sqlite3 finds
#            no prebuilt binary and compiles itself (sharp's libvips comes prebuilt in its npm packages)
#   service  Node, the production node_modules and the TypeScript sources; runs as the unprivileged `node`
#            user; for the api and projector roles and the seed (`docker build --target service`)
#   worker   service plus Debian's Chromium for brochure PDFs; it can run every role, so it is also what a
#            plain `docker build .` gives
#
# No build step: the entry is `node --import tsx src/main.ts`, as `npm start` runs it (Node's default young
# generation, for the API's tail latency: see README "Configuration"). tsx is a production
# dependency and only loads the TypeScript (esbuild strips the types; nothing is type-checked at start), so
# the image runs exactly the files the tests ran, no compiled output can drift from them, and the stop
# signal reaches Node itself (no npm or shell in between), which drains (see README "Stopping").
#
# Node 20.20.2 is the version the README's benchmark figures were measured on. Pin the digest too where the
# registry can be reached (`docker buildx imagetools inspect node:20.20.2-bookworm-slim`); this repository's
# machines reach no image registry, so it could not be looked up here.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS service
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  DATA_DIR=/var/lib/catalogue
WORKDIR /app
# Owned by root and read-only to the service: it writes only to DATA_DIR (upload staging; the embedded
# stores when no server is configured) and to /tmp (tsx's transform cache).
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY commands ./commands
COPY queries ./queries
COPY projections ./projections
COPY workers ./workers
RUN mkdir -p /var/lib/catalogue && chown node:node /var/lib/catalogue && chmod 0700 /var/lib/catalogue
USER node
EXPOSE 8080
# Liveness: GET /livez on METRICS_PORT, which every role serves when it is set, else on the API port (the
# api role only: a projector or worker without METRICS_PORT serves no HTTP). Node 20 has fetch; the slim
# image has no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.METRICS_PORT || process.env.PORT || 8080) + '/livez').then((answer) => process.exit(answer.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--import", "tsx", "src/main.ts"]
# No role given: every role in one process. docker-compose.yml gives each container its own (--role api).
CMD []

FROM service AS worker
USER root
# Debian's Chromium rather than @sparticuz/chromium: that one unpacks a build made for Amazon Linux into
# /tmp at run time and needs shared libraries a slim Debian image lacks, while the Debian package brings
# its libraries and gets Debian's security updates (so its exact version is not pinnable: the archive keeps
# only the current one; rebuild the image to take an update).
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium \
  && rm -rf /var/lib/apt/lists/*
ENV CHROMIUM_PATH=/usr/bin/chromium
USER node
