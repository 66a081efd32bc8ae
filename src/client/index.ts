/**
 * `a2a-operator/client`: call an A2A agent over every interface its card declares, with the
 * selection and failover rules of docs/client.md, through the official @a2a-js/sdk clients.
 */
export {
  ClientClosedError,
  FailoverCallError,
  FailoverClient,
  type AttemptReport,
  type CallReport,
  type FailoverClientOptions,
  type InterfaceRef,
} from './failover-client.js';
export { CallOutcome } from './failover-policy.js';
export { CardLoadError, type CardSource } from './card-source.js';
export type { Candidate, SkippedInterface } from './candidates.js';
