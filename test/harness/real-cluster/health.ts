/** Waiting for the real cluster's parts to be healthy, each with the log tail when it is not. */
import { get as httpGet, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Managed } from '../process.js';

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** GET a URL; https without verification (the components' self-signed serving certs on loopback). */
export function getStatus(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const onRes = (res: IncomingMessage): void => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    };
    const req = url.startsWith('https:')
      ? httpsRequest(url, { rejectUnauthorized: false, timeout: 5000 }, onRes)
      : httpGet(url, { timeout: 5000 }, onRes);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** Polls `check` until it returns true; fails early when `proc` exits, with its log tail. */
export async function waitHealthy(
  what: string,
  proc: Managed | undefined,
  check: () => Promise<boolean | string>,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    if (proc && proc.child.exitCode !== null)
      throw new Error(`${what} exited (${proc.child.exitCode}):\n${proc.tail(40)}`);
    try {
      const r = await check();
      if (r === true) return;
      last = typeof r === 'string' ? r : 'not yet';
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline)
      throw new Error(`${what} not healthy after ${timeoutMs} ms: ${last}\n${proc?.tail(40) ?? ''}`);
    await sleep(300);
  }
}

export async function healthzOk(url: string): Promise<boolean | string> {
  const r = await getStatus(url);
  return r.status === 200 || `${r.status} ${r.body.slice(0, 200)}`;
}
