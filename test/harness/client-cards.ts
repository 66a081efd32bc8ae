/** Cards on loopback for the client tests: one interface per binding at a port, v1.0 shape. */
export const jsonrpc = (port: number) => ({
  url: `http://127.0.0.1:${port}/a2a/jsonrpc`,
  protocolBinding: 'JSONRPC',
  protocolVersion: '1.0',
});
export const rest = (port: number) => ({
  url: `http://127.0.0.1:${port}/a2a/rest`,
  protocolBinding: 'HTTP+JSON',
  protocolVersion: '1.0',
});
export const grpc = (port: number) => ({
  url: `http://127.0.0.1:${port}`,
  protocolBinding: 'GRPC',
  protocolVersion: '1.0',
});

export function card(supportedInterfaces: object[]) {
  return {
    name: 'failover-test',
    description: 'client failover test card',
    version: '1.0.0',
    supportedInterfaces,
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}
