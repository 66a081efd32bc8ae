/**
 * zod schemas for the card shapes seen on the wire. They check only the fields that decide
 * where and how an agent is called; everything else passes through untouched (loose objects),
 * because a card is validated for transport consistency here, not for completeness.
 */
import { z } from 'zod';

/** v1.0 `AgentInterface` (spec a2a.proto v1.0.1). */
export const agentInterfaceV1Schema = z.looseObject({
  url: z.string(),
  protocolBinding: z.string().min(1),
  protocolVersion: z.string().min(1),
  tenant: z.string().optional(),
});

/** v0.3 `AgentInterface`: `{url, transport}` (types.ts v0.3.0). */
export const agentInterfaceV03Schema = z.looseObject({
  url: z.string(),
  transport: z.string().min(1),
});

/** v1.0 card: endpoints only in `supportedInterfaces`. */
export const agentCardV1Schema = z.looseObject({
  name: z.string().optional(),
  supportedInterfaces: z.array(agentInterfaceV1Schema),
});

/** v0.3 card: `url` + `preferredTransport` (default JSONRPC) + `additionalInterfaces`. */
export const agentCardV03Schema = z.looseObject({
  name: z.string().optional(),
  url: z.string(),
  protocolVersion: z.string().min(1),
  preferredTransport: z.string().min(1).optional(),
  additionalInterfaces: z.array(agentInterfaceV03Schema).optional(),
});

/** The SDK's compat card: v0.3 top-level fields with the v1.0 `supportedInterfaces` embedded. */
export const agentCardHybridSchema = agentCardV03Schema.extend({
  supportedInterfaces: z.array(agentInterfaceV1Schema).min(1),
});

export type AgentCardV1 = z.infer<typeof agentCardV1Schema>;
export type AgentCardV03 = z.infer<typeof agentCardV03Schema>;
export type AgentCardHybrid = z.infer<typeof agentCardHybridSchema>;
