export {
  canonicalBinding,
  isKnownBinding,
  isKnownVersion,
  majorMinor,
  ProtocolBinding,
  ProtocolVersion,
  wireOf,
} from './bindings.js';
export {
  Capability,
  CAPABILITIES,
  capabilityClaims,
  MAX_REQUIRED_EXTENSIONS,
  requiredExtensions,
} from './card-claims.js';
export { cardDigest, canonicalJson } from './card-digest.js';
export { cardJsonProblem, MAX_CARD_DEPTH } from './card-json.js';
export { CardParseError } from './card-parse-error.js';
export {
  interfaceEndpoint,
  isEndpointViolation,
  isLoopbackHost,
  trimTrailingSlashes,
  type EndpointViolation,
  type InterfaceEndpoint,
} from './interface-endpoint.js';
export { parseCard } from './parse-card.js';
export type { CardInterface, CardShape, LegacyView, ParsedCard, PreferredInterface } from './parsed-card.js';
export {
  interfaceEligibility,
  staticChecks,
  type Finding,
  type InterfaceEligibility,
  type StaticCheckOptions,
} from './static-checks.js';
