/**
 * grpc-js reports every transport failure as UNAVAILABLE with a text message. To name the cause
 * by a stable code, the probe dials once more itself (same address, TLS settings and ALPN `h2`),
 * sends the HTTP/2 client preface and looks at the first bytes that come back.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { InterfaceState } from '../api/conditions.js';
import type { DialTarget } from './dial-target.js';
import type { ProbeEvidence, Verdict } from './probe-result.js';
import { checkIdentityFor, isIpLiteral, type TlsSettings } from './tls-settings.js';
import { classifyTransportFailure } from './transport-failure.js';
import { clip, verdict } from './verdict.js';

const HTTP2_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]), // empty SETTINGS frame
]);
const HTTP2_FRAME_SETTINGS = 0x4;
const HTTP2_FRAME_GOAWAY = 0x7;

export interface DiagnosisInput {
  target: DialTarget;
  tls: boolean;
  urlHost: string;
  tlsSettings?: TlsSettings;
  timeoutMs: number;
  what: string;
  evidence: ProbeEvidence;
  /** What grpc-js said, kept in the message when the cause stays unclear. */
  grpcDetails: string;
}

type Outcome =
  | { kind: 'data'; data: Buffer; alpn?: string | false }
  | { kind: 'closed' }
  | { kind: 'error'; err: unknown }
  | { kind: 'timeout' };

function dial(input: DiagnosisInput): Promise<Outcome> {
  return new Promise((resolve) => {
    let socket: Socket;
    let done = false;
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), input.timeoutMs);
    const insecure = input.tlsSettings?.insecureSkipVerify === true;
    const onReady = () => socket.write(HTTP2_PREFACE);
    if (input.tls) {
      const tls = tlsConnect({
        host: input.target.address,
        port: input.target.port,
        servername: isIpLiteral(input.urlHost) ? undefined : input.urlHost,
        ca: input.tlsSettings?.ca,
        rejectUnauthorized: !insecure,
        checkServerIdentity: insecure ? () => undefined : checkIdentityFor(input.urlHost),
        ALPNProtocols: ['h2'],
      });
      socket = tls;
      tls.once('secureConnect', onReady);
      tls.on('data', (data: Buffer) => finish({ kind: 'data', data, alpn: tls.alpnProtocol ?? false }));
    } else {
      socket = netConnect({ host: input.target.address, port: input.target.port });
      socket.once('connect', onReady);
      socket.on('data', (data: Buffer) => finish({ kind: 'data', data }));
    }
    socket.on('error', (err) => finish({ kind: 'error', err }));
    socket.on('close', () => finish({ kind: 'closed' }));
  });
}

export async function diagnoseGrpcTransport(input: DiagnosisInput): Promise<Verdict> {
  const outcome = await dial(input);
  const S = InterfaceState;
  const { what, evidence } = input;
  switch (outcome.kind) {
    case 'error':
      return classifyTransportFailure(outcome.err, {
        what,
        tls: input.tls,
        timeoutMs: input.timeoutMs,
        evidence,
      });
    case 'timeout':
      return verdict(
        S.Timeout,
        `${what}: connected, but no HTTP/2 answer within ${input.timeoutMs} ms`,
        evidence,
      );
    case 'closed':
      return verdict(
        S.Unreachable,
        `${what}: the server closed the connection without answering an HTTP/2 preface`,
        {
          ...evidence,
          errorCode: 'ECONNCLOSED',
        },
      );
    case 'data': {
      const head = outcome.data.subarray(0, 64).toString('latin1');
      if (head.startsWith('HTTP/1.')) {
        return verdict(
          S.WrongBinding,
          `${what}: an HTTP/1.1 server answers on this port (${clip(head.split('\r\n')[0] ?? '', 60)}), not gRPC over HTTP/2${
            input.tls && outcome.alpn !== 'h2' ? '; TLS negotiated no h2' : ''
          }`,
          { ...evidence, errorCode: 'HTTP1_ANSWER' },
        );
      }
      const frameType = outcome.data.length >= 9 ? outcome.data[3] : undefined;
      if (frameType === HTTP2_FRAME_SETTINGS || frameType === HTTP2_FRAME_GOAWAY) {
        return verdict(
          S.Inconclusive,
          `${what}: an HTTP/2 server answers, but the gRPC call failed: ${clip(input.grpcDetails)}`,
          evidence,
        );
      }
      return verdict(
        S.WrongBinding,
        `${what}: the answer is neither HTTP/2 nor HTTP/1.1 (${JSON.stringify(clip(head, 24))})`,
        {
          ...evidence,
          errorCode: 'UNKNOWN_PROTOCOL',
        },
      );
    }
  }
}
