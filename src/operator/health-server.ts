/** `/healthz` (the process serves), `/readyz` (caches synced) and `/metrics` (Prometheus). */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface HealthSource {
  ready(): { ok: boolean; detail: string };
  registry: Registry;
}

export function createHealthServer(source: HealthSource): Server {
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://health').pathname;
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok\n');
    } else if (path === '/readyz') {
      const r = source.ready();
      res.writeHead(r.ok ? 200 : 503, { 'content-type': 'text/plain' });
      res.end(`${r.detail}\n`);
    } else if (path === '/metrics') {
      source.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': source.registry.contentType });
          res.end(text);
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(err));
        },
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
    }
  });
}

/** Parses `host:port` or `:port` (all interfaces) for listen(). */
export function parseListenAddress(addr: string): { host?: string; port: number } {
  const m = /^(?:(.*):)?(\d+)$/.exec(addr);
  if (!m) throw new Error(`invalid listen address ${JSON.stringify(addr)} (want host:port or :port)`);
  const host = m[1] ? m[1].replace(/^\[|\]$/g, '') : undefined;
  return { host, port: Number(m[2]) };
}
