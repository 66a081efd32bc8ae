/** A JSON request to a test agent's control endpoint (the JS agents' and the Go agent's alike). */
import { request } from 'node:http';

/**
 * Sends `body` as JSON and resolves to the parsed answer (or its text when it is not JSON). An
 * answer of 400 or more rejects: a control call that failed leaves the agent in a state the test
 * did not ask for. Each call has a connection of its own (agent: false): reusing a kept-alive one
 * races the server closing it after its idle timeout, and loses as "socket hang up" on a busy
 * machine.
 */
export function controlRequest(method: 'GET' | 'POST', url: string, body?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent: false, timeout: 5000, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          const status = res.statusCode ?? 500;
          if (status >= 400) return reject(new Error(`${method} ${url}: HTTP ${status} ${text}`));
          try {
            resolve(text ? JSON.parse(text) : undefined);
          } catch {
            resolve(text);
          }
        });
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer in 5 s`)));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
