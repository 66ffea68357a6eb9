# syntax=docker/dockerfile:1
# Renew: one image for every role. `docker run IMAGE api|capture|worker` (or no argument: everything in one process).
# README "Operating it" → "Docker and compose"; deploy/compose.yaml runs it with PostgreSQL and HAProxy.

# Build: every dependency, then `npm run build` (the server's JavaScript, the widget, the console, the capture host's scripts).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund && npm run build

# Runtime: production dependencies and the built output only; no sources, no compiler, no bundler.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# npm ci needs every workspace's package.json (the workspaces are linked into node_modules).
COPY package.json package-lock.json ./
COPY billing-service/package.json billing-service/
COPY capture-service/package.json capture-service/
COPY widget/package.json widget/
COPY console/package.json console/
COPY checkout-react/package.json checkout-react/
COPY demo-site/package.json demo-site/
COPY e2e/package.json e2e/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
# What the compiled start reads (test/dockerfile.test.ts checks this list against the build's output).
COPY --from=build /app/dist dist
COPY --from=build /app/billing-service/dist billing-service/dist
COPY --from=build /app/billing-service/catalog billing-service/catalog
COPY --from=build /app/capture-service/dist capture-service/dist
COPY --from=build /app/demo-site/dist demo-site/dist
COPY --from=build /app/demo-site/public demo-site/public
COPY --from=build /app/widget/dist widget/dist
COPY --from=build /app/widget/dist-server widget/dist-server
COPY --from=build /app/console/dist console/dist
COPY deploy/healthcheck.mjs deploy/healthcheck.mjs
# The embedded database's folder (one process only; use PostgreSQL, DATABASE_URL, for several), owned by the user that runs.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
# Listen beyond the container's loopback; RENEW_API_PORT (8080) and RENEW_CAPTURE_PORT (8081) as usual.
ENV RENEW_HOST=0.0.0.0
EXPOSE 8080 8081
# The role's /readyz (the worker listens on no port: its compose service turns the check off).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "deploy/healthcheck.mjs"]
ENTRYPOINT ["node", "--conditions=renew-compiled", "dist/start.js"]
CMD ["api"]
