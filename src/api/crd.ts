/**
 * Generates the A2AAgent CustomResourceDefinition from the zod schemas. zod 4's JSON Schema
 * output is close to, but not, a Kubernetes structural schema; `toStructural` applies the
 * fixes: no `$schema`/`additionalProperties:false`, int-or-string unions become
 * `x-kubernetes-int-or-string`, JavaScript safe-integer bounds are dropped, and every object
 * node carries `type: object`.
 */
import { z } from 'zod';
import {
  DNS1035_LABEL,
  A2AAgentSpec,
  A2AAgentStatus,
  GROUP,
  KIND,
  PLURAL,
  SHORT_NAMES,
  SINGULAR,
  VERSION,
} from './a2aagent.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const SAFE_INT = Number.MAX_SAFE_INTEGER;

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Rewrites one JSON Schema node (recursively) into its structural-schema form. */
export function toStructural(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  // int-or-string: zod emits anyOf [{type: integer}, {type: string}].
  const anyOf = node.anyOf;
  if (Array.isArray(anyOf)) {
    const types = anyOf.filter(isObject).map((s) => s.type);
    if (types.includes('integer') && types.includes('string') && types.length === 2) {
      out['x-kubernetes-int-or-string'] = true;
      for (const [k, v] of Object.entries(node)) {
        if (k !== 'anyOf') out[k] = v;
      }
      return out;
    }
    throw new Error(`unsupported anyOf in CRD schema: ${JSON.stringify(anyOf)}`);
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'id' || key === '$id') continue;
    if (key === 'additionalProperties' && (value === false || isObject(node.properties))) continue;
    if ((key === 'minimum' && value === -SAFE_INT) || (key === 'maximum' && value === SAFE_INT)) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, isObject(v) ? toStructural(v) : v]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && isObject(value)) {
      out[key] = toStructural(value);
    } else {
      out[key] = value;
    }
  }
  if (isObject(out.properties) && out.type === undefined) out.type = 'object';
  return out;
}

function schemaOf(schema: z.ZodType): JsonObject {
  // io: 'input' so fields with defaults are optional and their defaults are published:
  // the API server applies them, and `kubectl get -o yaml` shows the effective spec.
  const raw = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw', target: 'openapi-3.0' });
  return toStructural(raw as JsonObject);
}

export const CRD_NAME = `${PLURAL}.${GROUP}`;

const printerColumns: JsonObject[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
  {
    name: 'Verified',
    type: 'string',
    jsonPath: '.status.verified',
    description: 'Verified interfaces of the declared ones',
  },
  {
    name: 'Preferred',
    type: 'string',
    jsonPath: '.status.advertised.preferred.protocolBinding',
    description: 'Binding the advertised card lists first',
  },
  {
    name: 'Pods',
    type: 'string',
    jsonPath: '.status.card.podsConsistent',
    description: 'Pods serving the card',
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  {
    name: 'Message',
    type: 'string',
    priority: 1,
    jsonPath: '.status.conditions[?(@.type=="Ready")].message',
  },
];

/** The CRD object, ready to serialise as YAML. */
export function buildCrd(): JsonObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
    spec: {
      group: GROUP,
      names: {
        kind: KIND,
        listKind: `${KIND}List`,
        plural: PLURAL,
        singular: SINGULAR,
        shortNames: SHORT_NAMES,
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: printerColumns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description:
                'A2AAgent declares an A2A agent served by a set of pods. The operator probes every interface that each pod card declares and advertises only the verified ones.',
              required: ['spec'],
              // A Service name must be a DNS-1035 label; without routing.serviceName the
              // agent's name is the Service's (docs/routing.md, "Names").
              'x-kubernetes-validations': [
                {
                  rule: `has(self.spec.routing) && has(self.spec.routing.serviceName) || (size(self.metadata.name) <= 63 && self.metadata.name.matches('${DNS1035_LABEL.source}'))`,
                  message:
                    "metadata.name is not a DNS-1035 label (at most 63 characters of a-z, 0-9 and '-', starting with a letter, no dots): set spec.routing.serviceName to name the managed Service",
                },
              ],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: schemaOf(A2AAgentSpec),
                status: {
                  ...schemaOf(A2AAgentStatus),
                  description: 'The observed state, written by the operator.',
                },
              },
            },
          },
        },
      ],
    },
  };
}
