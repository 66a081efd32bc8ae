/**
 * The metadata of the gRPC probes (GetTask, grpc-probe.ts; capability calls, capability-probe.ts):
 * what they send and what they read from an answer.
 */
import { Metadata } from '@grpc/grpc-js';
import type { CardInterface } from '../card/parsed-card.js';
import { errorInfoReasonsOf } from './grpc-wire-messages.js';
import { extensionHeaders } from './wire-forms.js';

/** A call's request metadata: the interface's A2A version, its required extensions, the bearer token if any. */
export function requestMetadata(iface: CardInterface, bearerToken: string | undefined): Metadata {
  const metadata = new Metadata();
  metadata.set('a2a-version', iface.protocolVersion);
  for (const [k, v] of Object.entries(extensionHeaders(iface.protocolVersion, iface.requiredExtensions)))
    metadata.set(k, v);
  if (bearerToken) metadata.set('authorization', `Bearer ${bearerToken}`);
  return metadata;
}

/** Whether the metadata says `application/grpc`: false means something else answered over HTTP/2. */
export function isGrpcContentType(md: Metadata | undefined): boolean {
  const ct = md?.get('content-type')[0];
  return typeof ct === 'string' && ct.startsWith('application/grpc');
}

/** The ErrorInfo reasons in the trailers' `grpc-status-details-bin`. */
export function errorInfoReasons(md: Metadata | undefined): string[] {
  return errorInfoReasonsOf(md?.get('grpc-status-details-bin')[0]);
}
