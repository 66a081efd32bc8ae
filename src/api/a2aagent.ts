/**
 * A2AAgent (a2a.dev/v1alpha1): the single source of truth for the API. The CRD in
 * crds/a2a.dev_a2aagents.yaml is generated from these schemas (`npm run gen`, src/api/crd.ts)
 * and the TypeScript types are inferred from them, so the three cannot drift apart.
 *
 * Field docs (`.meta({description})`) become the OpenAPI descriptions `kubectl explain` shows.
 * `x-kubernetes-*` keys in `.meta()` pass straight into the CRD.
 */
import { z } from 'zod';
import { capabilityStates, interfaceStates } from './conditions.js';

export const GROUP = 'a2a.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'A2AAgent';
export const PLURAL = 'a2aagents';
export const SINGULAR = 'a2aagent';
export const SHORT_NAMES = ['a2a'];

/**
 * Cap on spec.probe.timeoutSeconds. A reconcile starts probes for 30 s (observe-pods.ts
 * PROBE_BUDGET_MS) and cuts a started one at budget + timeout + 1 s; with this cap probing ends
 * by 51 s, inside the controller's 60 s reconcile timeout, with time left to write status.
 */
export const MAX_PROBE_TIMEOUT_SECONDS = 20;

const dnsLabel = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);

/** A DNS-1035 label: what a Service name must be (starts with a letter). */
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Label = z.string().min(1).max(63).regex(DNS1035_LABEL);

const objectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);

export const LabelSelectorRequirement = z
  .object({
    key: z.string().min(1).meta({ description: 'The label key that the selector applies to.' }),
    operator: z
      .enum(['In', 'NotIn', 'Exists', 'DoesNotExist'])
      .meta({ description: "The key's relationship to the values: In, NotIn, Exists or DoesNotExist." }),
    values: z
      .array(z.string())
      .optional()
      .meta({ description: 'Values for In and NotIn; must be empty for Exists and DoesNotExist.' }),
  })
  .meta({
    'x-kubernetes-validations': [
      {
        rule: "self.operator in ['In', 'NotIn'] ? size(self.values) > 0 : !has(self.values) || size(self.values) == 0",
        message: 'values must be non-empty for In/NotIn and empty for Exists/DoesNotExist',
      },
    ],
  });

export const LabelSelector = z
  .object({
    matchLabels: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Labels a pod must carry (ANDed with matchExpressions).' }),
    matchExpressions: z
      .array(LabelSelectorRequirement)
      .optional()
      .meta({ description: 'Set-based label requirements (ANDed).' }),
  })
  .meta({
    description:
      'Selects the pods that serve this agent, in the agent namespace. An empty selector is refused: it would select every pod.',
    'x-kubernetes-validations': [
      {
        rule: '(has(self.matchLabels) && size(self.matchLabels) > 0) || (has(self.matchExpressions) && size(self.matchExpressions) > 0)',
        message: 'selector must set matchLabels or matchExpressions',
      },
    ],
  });

export const AgentPort = z
  .object({
    name: dnsLabel.meta({
      description:
        'Port name, a DNS label; also the name of the managed Service port. card.port refers to it.',
    }),
    port: z.number().int().min(1).max(65535).meta({
      description:
        'The port number that card URLs name (443/80 when a URL names none). Also the managed Service port.',
    }),
    targetPort: z
      .union([z.number().int().min(1).max(65535), dnsLabel])
      .optional()
      .meta({
        description:
          "The pod port: a number, or the name of a containerPort. Defaults to the value of 'port'.",
      }),
  })
  .meta({ description: 'One of the agent ports, as its Service exposes them.' });

export const CardSource = z
  .object({
    port: dnsLabel.meta({ description: 'Name of the spec.ports entry on which pods serve their card.' }),
    path: z
      .string()
      .regex(/^\/[^\s?#]*$/)
      .max(1024)
      .default('/.well-known/agent-card.json')
      .meta({ description: 'HTTP path of the card on each pod.' }),
    scheme: z
      .enum(['HTTP', 'HTTPS'])
      .default('HTTP')
      .meta({ description: 'Scheme used to fetch the card from each pod: HTTP or HTTPS.' }),
  })
  .meta({ description: 'Where each pod serves its AgentCard.' });

export const ProbeSettings = z
  .object({
    periodSeconds: z
      .number()
      .int()
      .min(1)
      .max(86400)
      .default(30)
      .meta({ description: 'How often a verified interface is reprobed, in seconds (jittered).' }),
    timeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(MAX_PROBE_TIMEOUT_SECONDS)
      .default(3)
      .meta({
        description: `Deadline of one probe or card fetch, in seconds. Must be less than periodSeconds. At most ${MAX_PROBE_TIMEOUT_SECONDS} so a reconcile always ends: probes start during its first 30 s, each is cut at 30 s + timeoutSeconds + 1 s, which leaves time to write status within the 60 s reconcile timeout.`,
      }),
    failureThreshold: z.number().int().min(1).max(100).default(2).meta({
      description:
        'Consecutive failed probes before a verified interface is withdrawn. Confirmation reprobes run about a second apart, not a whole period.',
    }),
    failOn: z.enum(['AllPods', 'AnyPod']).default('AllPods').meta({
      description:
        'When a confirmed failure sets Stalled=True (kstatus Failed: Flux and Argo CD fail the sync). AllPods (default): only when no ready pod is free of confirmed failures; a failure on some pods only is Ready=False, PodsConsistent=False (PartialFailure) and stays InProgress. AnyPod: a failure confirmed on any ready pod stalls.',
    }),
    capabilities: z.enum(['Report', 'Enforce']).optional().meta({
      description:
        'Capability truth (streaming, pushNotifications, extendedAgentCard checked per verified interface with side-effect-free calls). Report (default): status.capabilities and the CapabilitiesVerified condition only. Enforce: CapabilitiesVerified is part of Ready, and a claimed capability not served is set false in the advertised card.',
    }),
    // issue 17: opt-in, side-effecting (it sends a real message).
    taskContinuity: z.enum(['Off', 'Once']).default('Off').meta({
      description:
        'Once: for each new card digest, send one message over the first verified interface of one pod (this CREATES A TASK on the agent), look its task up with GetTask over every other verified interface, cancel it where allowed, and report the TaskContinuity condition (not part of Ready). Off (default): never.',
    }),
  })
  .meta({
    description: 'Probe timing.',
    'x-kubernetes-validations': [
      {
        rule: 'self.timeoutSeconds < self.periodSeconds',
        message: 'timeoutSeconds must be less than periodSeconds',
        fieldPath: '.timeoutSeconds',
      },
    ],
  });

const KeyRef = z.object({
  name: objectName.meta({ description: 'Name of the object, in the agent namespace.' }),
  key: z.string().min(1).max(253).meta({ description: 'Key within the object data.' }),
});

export const SecretKeyRef = z
  .object({
    secretKeyRef: KeyRef.meta({
      description:
        'A key of a Secret in the agent namespace; the Secret must carry the label a2a.dev/credential="true" (otherwise SecretNotPermitted).',
    }),
  })
  .meta({ description: 'A value read from a Secret in the agent namespace.' });

export const TLSSettings = z
  .object({
    caBundle: z
      .object({
        configMapKeyRef: KeyRef.optional().meta({
          description: 'A key of a ConfigMap holding PEM certificates.',
        }),
        secretKeyRef: KeyRef.optional().meta({
          description:
            'A key of a Secret holding PEM certificates; the Secret must carry the label a2a.dev/credential="true".',
        }),
      })
      .optional()
      .meta({
        description: 'CA certificates that probes trust, instead of the system roots.',
        'x-kubernetes-validations': [
          {
            rule: 'has(self.configMapKeyRef) != has(self.secretKeyRef)',
            message: 'set exactly one of configMapKeyRef and secretKeyRef',
          },
        ],
      }),
    insecureSkipVerify: z
      .boolean()
      .default(false)
      .meta({ description: 'Skip certificate verification of probes (the answer is still classified).' }),
  })
  .meta({ description: 'TLS settings for HTTPS card fetches and TLS probes.' });

export const AuthSettings = z
  .object({
    bearerToken: SecretKeyRef.optional().meta({
      description:
        'A bearer token the probes present (Authorization header, gRPC authorization metadata): visible ASCII only (otherwise SecretInvalid). The Secret must carry the label a2a.dev/credential="true". Sent only to this agent pods; never logged.',
    }),
  })
  .meta({ description: 'Credentials the probes present.' });

export const RoutingSettings = z
  .object({
    mode: z.enum(['Enforce', 'Observe']).default('Enforce').meta({
      description:
        'Enforce: own the Service, its EndpointSlices and the advertised card, listing only verified interfaces. Observe: write status only.',
    }),
    serviceName: dns1035Label.optional().meta({
      description:
        'Name of the managed Service, a DNS-1035 label. Defaults to the A2AAgent name, which must then be a DNS-1035 label itself (at most 63 characters, no dots, starting with a letter).',
    }),
    authRequired: z.enum(['Advertise', 'Withdraw']).default('Advertise').meta({
      description:
        'What to do with interfaces that answer 401/403/UNAUTHENTICATED when no credentials are configured: Advertise (listening, handler unconfirmed) or Withdraw.',
    }),
    signingKey: SecretKeyRef.optional().meta({
      description:
        'A Secret key holding a private JWK; when set, a rewritten card is re-signed (JWS over JCS). The Secret must carry the label a2a.dev/credential="true" and list this agent in its annotation a2a.dev/sign-for (comma-separated A2AAgent names); otherwise SecretNotPermitted and nothing is published. The signature attests only the verified interfaces (docs/security.md).',
    }),
  })
  .meta({ description: 'How verified interfaces are advertised.' });

export const A2AAgentSpec = z
  .object({
    selector: LabelSelector,
    ports: z
      .array(AgentPort)
      .min(1)
      .max(32)
      .meta({
        description: 'The agent ports. A card URL is mapped to a pod port by its port number.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        'x-kubernetes-validations': [
          {
            rule: 'self.all(p, self.exists_one(q, q.port == p.port))',
            message: 'port numbers must be unique',
          },
        ],
      }),
    card: CardSource,
    hosts: z
      .array(
        z
          .string()
          .min(1)
          .max(253)
          .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/),
      )
      .max(32)
      .optional()
      .meta({
        description:
          'Extra host names that card URLs may use. When set, a URL whose host is neither the managed Service name nor listed here does not belong to this agent.',
        'x-kubernetes-list-type': 'set',
      }),
    // Full defaults (not {}): the API server evaluates the CEL rule on the default itself.
    probe: ProbeSettings.default({
      periodSeconds: 30,
      timeoutSeconds: 3,
      failureThreshold: 2,
      failOn: 'AllPods',
      taskContinuity: 'Off',
    }),
    tls: TLSSettings.optional(),
    auth: AuthSettings.optional(),
    routing: RoutingSettings.default({ mode: 'Enforce', authRequired: 'Advertise' }),
  })
  .meta({
    description: 'The desired state: which pods serve the agent, on which ports, and how to probe them.',
    'x-kubernetes-validations': [
      {
        rule: 'self.ports.exists(p, p.name == self.card.port)',
        message: 'card.port must name one of ports[].name',
        fieldPath: '.card.port',
      },
    ],
  });

/** metav1.Condition */
export const Condition = z.object({
  type: z
    .string()
    .max(316)
    .regex(
      /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/,
    )
    .meta({ description: 'Type of condition in CamelCase.' }),
  status: z.enum(['True', 'False', 'Unknown']).meta({ description: 'True, False or Unknown.' }),
  observedGeneration: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: 'The .metadata.generation the condition was set from.' }),
  lastTransitionTime: z.string().meta({ description: 'Last time the status changed.', format: 'date-time' }),
  reason: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
    .meta({ description: 'Programmatic identifier of the last transition, CamelCase.' }),
  message: z.string().max(32768).meta({ description: 'Human readable detail of the last transition.' }),
});

export const InterfaceStatus = z.object({
  url: z.string().meta({
    description:
      'The interface URL as the card declares it, shown safely: credentials redacted, control characters escaped, at most 256 characters.',
  }),
  protocolBinding: z.string().meta({ description: 'JSONRPC, HTTP+JSON, GRPC or a custom binding.' }),
  protocolVersion: z.string().meta({ description: 'The A2A protocol version of the interface.' }),
  tenant: z.string().optional().meta({ description: 'The tenant the card declares for the interface.' }),
  state: z.enum(interfaceStates).meta({ description: 'Probe verdict, aggregated over the ready pods.' }),
  verifiedPods: z.string().meta({ description: 'Pods on which the interface is verified, as "n/m".' }),
  advertised: z.boolean().meta({ description: 'Whether the advertised card lists this interface.' }),
  message: z.string().meta({ description: 'Evidence: binding, method, answer and pods.' }),
  lastTransitionTime: z.string().optional().meta({ format: 'date-time' }),
});

/** Cap on status.pods entries: status stays a few KiB however many pods there are. */
export const MAX_STATUS_PODS = 16;

export const PodStatus = z.object({
  name: z.string().meta({ description: 'Pod name.' }),
  ips: z.array(z.string()).max(2).optional().meta({ description: 'The pod addresses (status.podIPs).' }),
  ready: z.boolean().meta({
    description:
      "The pod's Ready condition (which includes readiness gates such as a2a.dev/card-verified): its EndpointSlice endpoints carry the same ready and serving.",
  }),
  probed: z.boolean().meta({
    description: 'Running with ready containers and not terminating: its card and interfaces are probed.',
  }),
  cardDigest: z.string().optional().meta({ description: 'sha256 of the canonical card this pod serves.' }),
  verified: z
    .string()
    .optional()
    .meta({ description: 'Interfaces of this pod\'s card verified on it, as "n/m".' }),
  failing: z.array(z.string()).max(4).optional().meta({
    description:
      'What fails on this pod: the card problem, or each failing interface as "BINDING url (vVERSION) State" (at most 4, then "and N more").',
  }),
  gate: z.string().optional().meta({
    description:
      'The a2a.dev/card-verified readiness gate on this pod, as "Status/Reason" (this reconcile\'s verdict when it writes one); unset when the pod does not list the gate.',
  }),
});

export const CapabilityStatus = z.object({
  name: z
    .enum(['streaming', 'pushNotifications', 'extendedAgentCard'])
    .meta({ description: 'The card capability the entry is about.' }),
  declared: z.boolean().meta({ description: 'What the card claims.' }),
  state: z.enum(capabilityStates).meta({
    description:
      'What the side-effect-free calls found, over the verified interfaces and ready pods (the worst of them): Verified, NotServed, Absent, Undeclared, Inconclusive or NotProbed.',
  }),
  interfaces: z
    .string()
    .meta({ description: 'Verified interfaces on which the finding holds everywhere, as "n/m".' }),
  message: z.string().meta({ description: 'Evidence: binding, call, answer and the claim.' }),
});

export const A2AAgentStatus = z.object({
  observedGeneration: z.number().int().optional(),
  conditions: z
    .array(Condition)
    .optional()
    .meta({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      description:
        'Ready, CardValid, InterfacesVerified, PodsConsistent, Advertised, Reconciling, Stalled, CapabilitiesVerified (part of Ready only with spec.probe.capabilities: Enforce), and TaskContinuity (only with spec.probe.taskContinuity: Once; never part of Ready).',
    }),
  card: z
    .object({
      shape: z
        .enum(['v1.0', 'v0.3', 'hybrid'])
        .optional()
        .meta({ description: 'Shape of the card the pods serve.' }),
      digest: z
        .string()
        .optional()
        .meta({ description: 'sha256 of the canonical card most ready pods serve.' }),
      podsConsistent: z.string().optional().meta({ description: 'Pods serving that card, as "n/m".' }),
    })
    .optional(),
  interfaces: z
    .array(InterfaceStatus)
    .max(64)
    .optional()
    .meta({ description: 'One entry per declared interface, in card order.' }),
  advertised: z
    .object({
      interfaces: z
        .number()
        .int()
        .min(0)
        .meta({ description: 'Number of interfaces in the advertised card.' }),
      preferred: z
        .object({ url: z.string(), protocolBinding: z.string() })
        .optional()
        .meta({ description: 'The interface the advertised card lists first.' }),
      configMapName: z.string().optional(),
      signatures: z
        .enum(['Unchanged', 'Removed', 'Resigned', 'None'])
        .optional()
        .meta({ description: 'What happened to the card signatures in the advertised card.' }),
    })
    .optional(),
  verified: z
    .string()
    .optional()
    .meta({ description: 'Verified interfaces of the declared ones, as "n/m".' }),
  pods: z
    .array(PodStatus)
    .max(MAX_STATUS_PODS)
    .optional()
    .meta({
      description: `The selected pods, those with a failure first, then by name; at most ${MAX_STATUS_PODS} (podsNotListed counts the rest). Shows which pod lies.`,
    }),
  podsNotListed: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: `Selected pods beyond the first ${MAX_STATUS_PODS}, not listed in pods.` }),
  lastTransitionProbeTime: z.string().optional().meta({
    format: 'date-time',
    description:
      'When the probe round that last changed this status ran. Status is written only on a change (none per steady period), so this is not the last probe: that is the metric a2a_operator_last_probe_timestamp_seconds.',
  }),
  capabilities: z
    .array(CapabilityStatus)
    .max(3)
    .optional()
    .meta({ description: 'Capability truth: one entry per card capability the probes check.' }),
});

export type A2AAgentSpec = z.infer<typeof A2AAgentSpec>;
export type A2AAgentSpecInput = z.input<typeof A2AAgentSpec>;
export type A2AAgentStatus = z.infer<typeof A2AAgentStatus>;
export type Condition = z.infer<typeof Condition>;
export type InterfaceStatus = z.infer<typeof InterfaceStatus>;
export type PodStatus = z.infer<typeof PodStatus>;
export type CapabilityStatus = z.infer<typeof CapabilityStatus>;
export type AgentPort = z.infer<typeof AgentPort>;
export type LabelSelector = z.infer<typeof LabelSelector>;

export interface ObjectMeta {
  name: string;
  namespace: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
}

/** An A2AAgent as the controller sees it: spec parsed (defaults applied), status as stored. */
export interface A2AAgent {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  metadata: ObjectMeta;
  spec: A2AAgentSpec;
  status?: A2AAgentStatus;
}
