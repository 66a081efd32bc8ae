export {
  CardFetchError,
  fetchCard,
  MAX_CARD_BYTES,
  type FetchCardOptions,
  type FetchCardResult,
} from './fetch-card.js';
export type { DialTarget } from './dial-target.js';
export type { ProbeEvidence, ProbeResult } from './probe-result.js';
export { Prober, type ProberOptions, type ProbeOptions } from './prober.js';
export type { TlsSettings } from './tls-settings.js';
export { classifyGrpc, type GrpcAnswer } from './classify-grpc.js';
export { classifyJsonRpc } from './classify-jsonrpc.js';
export { classifyRest } from './classify-rest.js';
export { classifyTransportFailure, errorCode } from './transport-failure.js';
export {
  capabilityVerdict,
  CapabilitySignal,
  grpcCapabilityAnswer,
  jsonRpcCapabilityAnswer,
  restCapabilityAnswer,
  type CapabilityAnswer,
  type CapabilityVerdict,
} from './classify-capability.js';
