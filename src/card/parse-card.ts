/**
 * Turns a card of any shape into the normalised model: ordered interfaces, the preferred one and
 * why. Shape detection follows the official SDK (`isLegacyAgentCard`): a non-empty
 * `supportedInterfaces` makes a v1.0 card, and v0.3 top-level fields beside it make it hybrid.
 */
import type { z } from 'zod';
import { canonicalBinding, majorMinor, ProtocolBinding } from './bindings.js';
import { agentCardHybridSchema, agentCardV03Schema, agentCardV1Schema } from './card-schema.js';
import { requiredExtensions } from './card-claims.js';
import { cardJsonProblem } from './card-json.js';
import { CardParseError } from './card-parse-error.js';
import type { CardInterface, LegacyView, ParsedCard } from './parsed-card.js';

const legacyFields = ['url', 'preferredTransport', 'additionalInterfaces'] as const;

export function parseCard(json: unknown): ParsedCard | CardParseError {
  const card = parseShape(json);
  if (card instanceof CardParseError) return card;
  const required = requiredExtensions(card.raw);
  if (required.length === 0) return card;
  return { ...card, interfaces: card.interfaces.map((i) => ({ ...i, requiredExtensions: required })) };
}

function parseShape(json: unknown): ParsedCard | CardParseError {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return new CardParseError('the card is not a JSON object');
  }
  // Total over whatever JSON.parse accepts: what no later step can handle is a verdict here.
  const problem = cardJsonProblem(json);
  if (problem) return new CardParseError(problem);
  const raw = json as Record<string, unknown>;
  const hasV1 = Array.isArray(raw.supportedInterfaces) && raw.supportedInterfaces.length > 0;
  const hasLegacy = legacyFields.some((f) => raw[f] !== undefined);
  if (hasV1 && hasLegacy) return parseHybrid(raw);
  if (hasV1 || (raw.supportedInterfaces !== undefined && !hasLegacy)) return parseV1(raw);
  if (hasLegacy) return parseV03(raw);
  return new CardParseError(
    'the card declares no endpoint: neither supportedInterfaces (v1.0) nor url (v0.3) is present',
  );
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(card)'}: ${i.message}`)
    .join('; ');
}

function v1Interfaces(list: z.infer<typeof agentCardV1Schema>['supportedInterfaces']): CardInterface[] {
  return list.map((i, index) => ({
    url: i.url,
    protocolBinding: canonicalBinding(i.protocolBinding),
    protocolVersion: majorMinor(i.protocolVersion),
    ...(i.tenant ? { tenant: i.tenant } : {}),
    index,
    declaredAt: `supportedInterfaces[${index}]`,
  }));
}

function parseV1(raw: Record<string, unknown>): ParsedCard | CardParseError {
  const parsed = agentCardV1Schema.safeParse(raw);
  if (!parsed.success) return new CardParseError(`invalid v1.0 card: ${issues(parsed.error)}`);
  const interfaces = v1Interfaces(parsed.data.supportedInterfaces);
  const first = interfaces[0];
  return {
    shape: 'v1.0',
    interfaces,
    preferred: first && {
      index: 0,
      url: first.url,
      protocolBinding: first.protocolBinding,
      why: 'first entry of supportedInterfaces (spec 8.3.2: earlier entries are preferred)',
    },
    raw,
  };
}

function legacyView(card: z.infer<typeof agentCardV03Schema>): LegacyView {
  return {
    url: card.url,
    preferredTransport: canonicalBinding(card.preferredTransport ?? ProtocolBinding.JSONRPC),
    preferredTransportDeclared: card.preferredTransport !== undefined,
    additionalInterfaces: (card.additionalInterfaces ?? []).map((a) => ({
      url: a.url,
      transport: canonicalBinding(a.transport),
    })),
    protocolVersion: majorMinor(card.protocolVersion),
  };
}

function parseV03(raw: Record<string, unknown>): ParsedCard | CardParseError {
  const parsed = agentCardV03Schema.safeParse(raw);
  if (!parsed.success) return new CardParseError(`invalid v0.3 card: ${issues(parsed.error)}`);
  const legacy = legacyView(parsed.data);
  const version = legacy.protocolVersion;
  const interfaces: CardInterface[] = [
    {
      url: legacy.url,
      protocolBinding: legacy.preferredTransport,
      protocolVersion: version,
      index: 0,
      declaredAt: 'url+preferredTransport',
    },
  ];
  legacy.additionalInterfaces.forEach((a, i) => {
    // additionalInterfaces SHOULD repeat the primary pair (spec 0.3 5.6); that is not a second interface.
    if (a.url === legacy.url && a.transport === legacy.preferredTransport) return;
    interfaces.push({
      url: a.url,
      protocolBinding: a.transport,
      protocolVersion: version,
      index: interfaces.length,
      declaredAt: `additionalInterfaces[${i}]`,
    });
  });
  return {
    shape: 'v0.3',
    interfaces,
    preferred: {
      index: 0,
      url: legacy.url,
      protocolBinding: legacy.preferredTransport,
      why: legacy.preferredTransportDeclared
        ? `v0.3 url with preferredTransport ${legacy.preferredTransport}`
        : 'v0.3 url with the default transport JSONRPC (no preferredTransport declared)',
    },
    legacy,
    raw,
  };
}

function parseHybrid(raw: Record<string, unknown>): ParsedCard | CardParseError {
  const parsed = agentCardHybridSchema.safeParse(raw);
  if (!parsed.success) return new CardParseError(`invalid hybrid card: ${issues(parsed.error)}`);
  const interfaces = v1Interfaces(parsed.data.supportedInterfaces);
  const first = interfaces[0]!;
  return {
    shape: 'hybrid',
    interfaces,
    preferred: {
      index: 0,
      url: first.url,
      protocolBinding: first.protocolBinding,
      why: 'first entry of supportedInterfaces (v1.0 clients ignore the v0.3 url/preferredTransport beside it)',
    },
    legacy: legacyView(parsed.data),
    raw,
  };
}
