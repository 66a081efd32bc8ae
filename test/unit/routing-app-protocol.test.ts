// A port's appProtocol names the bindings advertised on it, not every binding the card declares
// there: the seed card declares gRPC on its JSON-RPC port (8443); with only JSON-RPC verified and
// advertised, a mesh reading `appProtocol: grpc` would break the JSON-RPC traffic routed there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapInterfaces } from '../../src/observation/interface-map.js';
import { appProtocolFor, buildEndpointSlices, buildService, type Owner } from '../../src/routing/objects.js';
import { parsed, seedRaw, seedSpec } from './reconcile-fixtures.js';

const owner: Owner = { name: 'seed', namespace: 'demo', uid: 'uid-seed' };
const spec = seedSpec({ hosts: ['agent.internal'] });
const mapped = mapInterfaces(parsed(seedRaw()), { spec, namespace: 'demo', serviceName: 'seed' });
const key = (binding: string, port: string) =>
  mapped.find((m) => m.mapped && m.iface.protocolBinding === binding && m.port.name === port)!.key;

describe('appProtocol follows what is advertised on each port', () => {
  it('the card declares gRPC and JSON-RPC on https: without a plan both count, gRPC wins', () => {
    assert.equal(appProtocolFor(mapped, 'https'), 'grpc');
  });

  it('only JSON-RPC advertised on https: https, on the Service and on the slices', () => {
    const advertised = new Set([key('JSONRPC', 'https')]);
    assert.equal(appProtocolFor(mapped, 'https', advertised), 'https');
    const svc = buildService(owner, 'seed', spec, mapped, advertised);
    assert.deepEqual(
      svc.spec!.ports!.map((p) => `${p.name}:${p.appProtocol}`),
      ['https:https', 'grpc:undefined'],
    );
    const plan = {
      advertised: [...advertised],
      endpoints: new Map([
        ['https', []],
        ['grpc', []],
      ]),
    };
    const slices = buildEndpointSlices(owner, 'seed', spec, plan, [], mapped);
    assert.deepEqual(
      slices.map((s) => `${s.ports![0]!.name}:${s.ports![0]!.appProtocol}`),
      ['https:https', 'grpc:undefined'],
    );
  });

  it('gRPC advertised on its own port: grpc there (TLS), https stays https', () => {
    const advertised = new Set([key('JSONRPC', 'https'), key('GRPC', 'grpc')]);
    assert.equal(appProtocolFor(mapped, 'grpc', advertised), 'grpc');
    assert.equal(appProtocolFor(mapped, 'https', advertised), 'https');
  });
});
