/**
 * Reads what spec.auth, spec.tls and spec.routing.signingKey name (Secrets, ConfigMaps in the
 * agent's namespace). A missing object or key, a Secret that has not opted in
 * (secret-policy.ts) or a token that cannot be sent is a spec problem a person must fix
 * (Stalled=True), never a crash. Values are returned to the prober and signer only; they are
 * never logged or written to status, and a refused Secret's data is not even decoded.
 */
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { A2AAgentSpec } from '../api/a2aagent.js';
import { Reason } from '../api/conditions.js';
import type { KubeClient } from '../kube/client.js';
import { isNotFound, isForbidden } from '../kube/errors.js';
import { bearerTokenProblem } from '../probe/bearer-token.js';
import type { SpecProblem } from '../observation/observed.js';
import type { ProbeCredentials } from './probe-backend.js';
import { secretUseProblem, type SecretUse } from './secret-policy.js';

export interface ResolvedCredentials {
  credentials: ProbeCredentials;
  /** Private JWK for re-signing the advertised card, when spec.routing.signingKey is set. */
  signingKey?: string;
  problems: SpecProblem[];
  /** Credentials the probes should present that could not be had (missing, refused, invalid). */
  gaps: CredentialGaps;
}

/**
 * Probes still run without a credential the spec names, but an answer that its absence explains
 * (AuthRequired without the token, a TLS failure without the CA bundle) is the operator's gap,
 * not the pod's failure: observe-pods.ts records no verdict for it.
 */
export interface CredentialGaps {
  bearerToken?: true;
  caBundle?: true;
}

type Ref = { name: string; key: string };

/** `record[key]` only when it is the record's own string (a spec key such as "constructor" must not reach the prototype). */
function own(record: Record<string, string> | undefined, key: string): string | undefined {
  if (record === undefined || !Object.hasOwn(record, key)) return undefined;
  const v = record[key];
  return typeof v === 'string' ? v : undefined;
}

/** The agent the values are for: its namespace holds the objects, its name is what a signing key must list. */
export interface AgentRef {
  namespace: string;
  name: string;
}

async function readKey(
  client: KubeClient,
  kind: 'Secret' | 'ConfigMap',
  agent: AgentRef,
  ref: Ref,
  field: string,
  use: SecretUse,
  signal?: AbortSignal,
): Promise<{ value?: string; problem?: SpecProblem }> {
  const namespace = agent.namespace;
  const path = `/api/v1/namespaces/${namespace}/${kind === 'Secret' ? 'secrets' : 'configmaps'}/${ref.name}`;
  const reason = kind === 'Secret' ? Reason.SecretNotFound : Reason.ConfigMapNotFound;
  try {
    if (kind === 'Secret') {
      const s = await client.get<V1Secret>(path, undefined, signal);
      const refused = secretUseProblem(
        {
          namespace,
          name: ref.name,
          labels: s.metadata?.labels,
          annotations: s.metadata?.annotations,
        },
        use,
        agent.name,
        field,
      );
      if (refused) return { problem: refused };
      const b64 = own(s.data, ref.key);
      if (b64 !== undefined) return { value: Buffer.from(b64, 'base64').toString('utf8') };
      const plain = own(s.stringData, ref.key);
      if (plain !== undefined) return { value: plain };
    } else {
      const c = await client.get<V1ConfigMap>(path, undefined, signal);
      const v = own(c.data, ref.key);
      if (v !== undefined) return { value: v };
    }
    return {
      problem: {
        reason,
        message: `${kind} ${namespace}/${ref.name} has no key ${JSON.stringify(ref.key)} (${field})`,
      },
    };
  } catch (err) {
    if (isNotFound(err))
      return { problem: { reason, message: `${kind} ${namespace}/${ref.name} not found (${field})` } };
    if (isForbidden(err)) {
      return {
        problem: {
          reason,
          message: `the operator may not read ${kind} ${namespace}/${ref.name} (${field}): check its RBAC`,
        },
      };
    }
    throw err;
  }
}

export async function resolveCredentials(
  client: KubeClient,
  agent: AgentRef,
  spec: A2AAgentSpec,
  signal?: AbortSignal,
): Promise<ResolvedCredentials> {
  const problems: SpecProblem[] = [];
  const credentials: ProbeCredentials = {};
  const gaps: CredentialGaps = {};
  const token = spec.auth?.bearerToken?.secretKeyRef;
  if (token) {
    const field = 'spec.auth.bearerToken';
    const r = await readKey(client, 'Secret', agent, token, field, 'credential', signal);
    if (r.problem) {
      problems.push(r.problem);
      gaps.bearerToken = true;
    } else {
      // Checked here, once: grpc-js and undici quote a refused header value in full in their errors.
      const value = r.value!.trim();
      const bad = bearerTokenProblem(value);
      if (bad) {
        problems.push({
          reason: Reason.SecretInvalid,
          message: `Secret ${agent.namespace}/${token.name} key ${JSON.stringify(token.key)} (${field}): ${bad}`,
        });
        gaps.bearerToken = true;
      } else credentials.bearerToken = value;
    }
  }
  if (spec.tls) {
    credentials.tls = { insecureSkipVerify: spec.tls.insecureSkipVerify };
    const ca = spec.tls.caBundle;
    const ref = ca?.configMapKeyRef ?? ca?.secretKeyRef;
    if (ref) {
      const kind = ca?.configMapKeyRef ? 'ConfigMap' : 'Secret';
      const r = await readKey(client, kind, agent, ref, 'spec.tls.caBundle', 'credential', signal);
      if (r.problem) {
        problems.push(r.problem);
        gaps.caBundle = true;
      } else credentials.tls.ca = r.value;
    }
  }
  let signingKey: string | undefined;
  const sk = spec.routing.signingKey?.secretKeyRef;
  if (sk) {
    const r = await readKey(client, 'Secret', agent, sk, 'spec.routing.signingKey', 'signing', signal);
    if (r.problem) problems.push(r.problem);
    else signingKey = r.value;
  }
  return { credentials, signingKey, problems, gaps };
}
