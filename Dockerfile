# The service image for the distributed mode (docker-compose.yml), on Node 24 LTS. The first stage runs the
# ahead-of-time build (scripts/build.mjs, npm ci's `prepare`); the image keeps the runtime dependencies and dist/
# only, and runs the compiled JavaScript: no transpiler at run time, as `npm start` does.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY scripts ./scripts
COPY domain ./domain
COPY commands ./commands
COPY projections ./projections
COPY processes ./processes
COPY infra ./infra
COPY api ./api
# npm ci builds dist/ (its `prepare` script); the development dependencies go once it has.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json ./
COPY config ./config
RUN mkdir -p /data && chown node:node /data
USER node
ENV DATA_DIR=/data PORT=3000 HOST=0.0.0.0
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD node -e "fetch('http://127.0.0.1:3000/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# `node dist/api/worker.js` runs a publishing worker from the same image.
CMD ["node", "dist/api/main.js"]
