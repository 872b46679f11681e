# The service image for the distributed mode (docker-compose.yml). Runs TypeScript through tsx, as `npm start` does.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY domain ./domain
COPY commands ./commands
COPY projections ./projections
COPY processes ./processes
COPY infra ./infra
COPY api ./api
COPY config ./config
COPY tsconfig.json ./
RUN mkdir -p /data && chown node:node /data
USER node
ENV DATA_DIR=/data PORT=3000 HOST=0.0.0.0
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD node -e "fetch('http://127.0.0.1:3000/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "--import", "tsx", "api/main.ts"]
