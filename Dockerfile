# syntax=docker/dockerfile:1
# Slipway: production image. Runs the TypeScript sources on Node 24 (native type stripping) against the
# MongoDB named by MONGODB_URI; the embedded FerretDB is for development only and is not in the image.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; @node-rs/argon2 ships prebuilt binaries, so no build tools are needed.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts \
 && npm cache clean --force

FROM node:24-bookworm-slim AS runtime
# HOST=0.0.0.0 is not a loopback address, so PUBLIC_URL must be given at run time (https://…, or a
# loopback http:// address for a port published to this machine only); without it Slipway refuses to start.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    KEYS_DIR=/app/keys \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY config ./config
COPY src ./src
RUN mkdir -p keys data && chown -R node:node keys data
USER node
EXPOSE 3000
# keys/ holds signing, cookie and data-encryption keys: mount a volume shared by every instance.
VOLUME ["/app/keys"]
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=8", "src/main.ts"]
