/** Manifests and agent configs the integration tests share. */
import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { stringify } from 'yaml';
import type { AgentConfig } from '../agents/agent-config.js';
import type { Cluster } from './cluster.js';

/** A v1.0 agent serving JSON-RPC and REST on :8080 and gRPC on :9090, as `svc` names them. */
export function healthyAgentConfig(svc: string, extra: Partial<AgentConfig> = {}): AgentConfig {
  return {
    http: { port: 8080 },
    grpc: { port: 9090 },
    interfaces: [
      { url: `http://${svc}:8080/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `http://${svc}:8080/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `http://${svc}:9090`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
    ...extra,
  };
}

export function agentManifest(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return { apiVersion: 'a2a.dev/v1alpha1', kind: 'A2AAgent', metadata: { name, namespace }, spec };
}

/** The spec of an agent made of healthyAgentConfig pods labelled app=<app>. */
export function healthySpec(
  app: string,
  probe: Record<string, number> = { periodSeconds: 5, timeoutSeconds: 2 },
): Record<string, unknown> {
  return {
    selector: { matchLabels: { app } },
    ports: [
      { name: 'http', port: 8080 },
      { name: 'grpc', port: 9090 },
    ],
    card: { port: 'http' },
    probe,
  };
}

/**
 * A healthy agent whose gRPC service is never registered: gRPC is withdrawn, so the advertised
 * card is a rewrite of the pod's (and re-signed when the agent names a signing key).
 */
export function rewrittenAgentConfig(svc: string): AgentConfig {
  return healthyAgentConfig(svc, { grpc: { port: 9090, register: false } });
}

/** A fresh ES256 key pair as JWKs with `kid`, the private one for signingKeySecret. */
export function es256Jwks(kid: string): { privateJwk: JsonWebKey; publicJwk: JsonWebKey } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'ES256' },
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256' },
  };
}

/** spec.routing.signingKey naming the JWK of a signingKeySecret. */
export function signingKeyRef(secret: string): {
  signingKey: { secretKeyRef: { name: string; key: string } };
} {
  return { signingKey: { secretKeyRef: { name: secret, key: 'key.jwk' } } };
}

/**
 * A signing-key Secret opted in for one agent (docs/security.md): the credential label, and the
 * sign-for annotation naming the agent; the JWK under `key.jwk`.
 */
export function signingKeySecret(
  ns: string,
  name: string,
  signFor: string,
  jwk: object,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: ns,
      labels: { 'a2a.dev/credential': 'true' },
      annotations: { 'a2a.dev/sign-for': signFor },
    },
    stringData: { 'key.jwk': JSON.stringify(jwk) },
  };
}

export async function apply(cluster: Cluster, ...objects: Record<string, unknown>[]): Promise<void> {
  const res = await cluster.kubectl(['apply', '-f', '-'], {
    input: objects.map((o) => stringify(o)).join('---\n'),
  });
  if (res.code !== 0) throw new Error(`kubectl apply failed: ${res.stderr}`);
}

/** The card of shared/seeds/000: preferredTransport GRPC at the JSON-RPC url, gRPC declared on :9443. */
export const seedCard = {
  name: 'seed-agent',
  description: 'the agent of shared/seeds/000',
  version: '1.0.0',
  protocolVersion: '0.3.0',
  url: 'https://agent.internal:8443',
  preferredTransport: 'GRPC',
  additionalInterfaces: [
    { url: 'https://agent.internal:8443', transport: 'JSONRPC' },
    { url: 'https://agent.internal:9443', transport: 'GRPC' },
  ],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

/**
 * The seed scenario's pod: JSON-RPC on :8443 (TLS, at "/") serving seedCard, and a gRPC server on
 * :9443 (TLS) with the A2A service never registered.
 */
export function seedAgentConfig(cert: { cert: string; key: string }): AgentConfig {
  return {
    http: { port: 8443, tls: cert, jsonrpcPath: '/', restPath: null },
    grpc: { port: 9443, tls: cert, register: false },
    legacyCompat: true,
    interfaces: [{ url: 'https://agent.internal:8443', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    card: { serve: 'json', json: seedCard },
  };
}
