# One image for both stateless processes: `npm run api` (default) or `npm run worker`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
# The worker bundles dist/workflows (deterministic code only) with Temporal's bundler when it starts.
USER node
EXPOSE 8080
CMD ["node", "dist/api/server.js"]
