# mcnode in a container: a devnet node serving VNODE JSON-RPC on 8545 and SCS on 8548, with its
# data (chain database, keystore, IPC socket) in the /data volume.
#
#   docker build -t mcnode .
#   docker run -p 127.0.0.1:8545:8545 -p 127.0.0.1:8548:8548 -v mcdata:/data mcnode
#
# Publish the ports on 127.0.0.1 only: the dev accounts are unlocked, anyone who reaches the
# port can spend from them. Inside the container the node binds 0.0.0.0 so that the published
# ports reach it. Host names other than localhost (a compose service name, say) go in
# MCNODE_RPCVHOSTS; every other flag has its MCNODE_* variable too (see --help).
# test/integration/dockerfile.test.ts runs these steps without Docker, so keep them plain.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workers ./workers
COPY config ./config
COPY explorer ./explorer
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# Memory settings that only work when set before the process starts (docs/design/memory.md#glibc-malloc):
# glibc's malloc serves every thread from two arenas instead of one per thread, and keeps blocks of
# 128 KiB and more in mappings of their own, returned when freed. (The node caps V8's young
# generation itself, at run: no NODE_OPTIONS, which would cost every start Node's code cache.)
ENV NODE_ENV=production \
    MCNODE_RPCVHOSTS=localhost \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
COPY --from=build /app/explorer ./explorer
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8545 8548 30333
# net_listening over HTTP with node's own fetch (the slim image has no curl).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.MCNODE_RPCPORT||process.env.MCNODE_RPC_PORT||8545)+'/',{method:'POST',headers:{'content-type':'application/json'},body:'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"net_listening\",\"params\":[]}',signal:AbortSignal.timeout(4000)}).then(r=>r.json()).then(j=>process.exit(j.result===true?0:1),()=>process.exit(1))"]
# The node is PID 1 and handles SIGTERM itself: it finishes the block being written, closes the
# database and exits 0. Exec form, so the signal reaches node and not a shell.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/cmd/cli.js", "--datadir", "/data", "--rpcaddr", "0.0.0.0", "--scsrpcaddr", "0.0.0.0"]
