/**
 * A test agent as a process ("pod"): `node --import tsx test/agents/agent-server.ts '<AgentConfig json>'`.
 * Prints one line `READY {"ports":{...}}` once every listener is bound, and exits on SIGTERM or
 * SIGINT. A control endpoint is always on (see control-server.ts) unless the config sets
 * `"control": false`.
 */
import type { AgentConfig } from './agent-config.js';
import { startAgent } from './start-agent.js';

const raw = process.argv[2] ?? '{}';
let config: AgentConfig;
try {
  config = JSON.parse(raw) as AgentConfig;
} catch (err) {
  process.stderr.write(`agent-server: config is not JSON: ${String(err)}\n`);
  process.exit(2);
}
const agent = await startAgent({ control: {}, ...config });
process.stdout.write(`READY ${JSON.stringify({ ports: agent.ports })}\n`);

const stop = () => {
  agent.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
