// The opt-in Prometheus endpoint (`--metrics`): GET /metrics on its own address and port, apart
// from JSON-RPC, so that a scraper never needs RPC access.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTENT_TYPE, type MetricsRegistry } from './registry.js';

export class MetricsServer {
  private server: Server | undefined;

  constructor(
    private readonly registry: MetricsRegistry,
    private readonly options: { host: string; port: number },
  ) {}

  start(): Promise<{ host: string; port: number }> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
        return;
      }
      this.registry.render().then(
        (text) => res.writeHead(200, { 'content-type': CONTENT_TYPE }).end(req.method === 'HEAD' ? undefined : text),
        (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${err.message}\n`),
      );
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        server.on('error', () => undefined);
        this.server = server;
        const info = server.address() as AddressInfo;
        resolve({ host: info.address, port: info.port });
      });
    });
  }

  stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
