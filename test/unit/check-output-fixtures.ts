// Reports for the check output tests: an honest one and one whose card and answers are hostile.
import type { CheckReport } from '../../src/cli/check/check-report.js';

export const HOSTILE =
  '\u001b[31mred\u001b[0m\r\n::error file=x.yaml,title=pwned::owned%0A\u202eevil\u0007\n##[warning]v1';

export const report: CheckReport = {
  consistent: false,
  card: { shape: 'v1.0', digest: 'sha256:abc' },
  findings: [],
  interfaces: [
    {
      url: 'http://weather.example:8080/a2a/jsonrpc',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      state: 'Verified',
      reason: 'Verified',
      message: 'JSONRPC GetTask answered TaskNotFound',
      evidence: { jsonRpcCode: -32001 },
    },
    {
      url: 'http://weather.example:8080/a2a/rest',
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
      state: 'Unimplemented',
      reason: 'InterfaceUnimplemented',
      message: 'GET /a2a/rest/tasks/x answered 404 without A2A error',
      evidence: { httpStatus: 404 },
    },
    {
      url: 'weather.example:9090',
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      state: 'Unreachable',
      reason: 'Unreachable',
      message: 'connect ECONNREFUSED 10.0.0.1:9090',
      evidence: { errorCode: 'ECONNREFUSED' },
    },
  ],
};

export const hostile: CheckReport = {
  consistent: false,
  card: { shape: 'v1.0', digest: `sha256:${HOSTILE}` },
  findings: [
    { reason: 'InterfaceURLInvalid', message: `url ${HOSTILE} <![CDATA[ ]]> & "q" 'a' \ud800 \uffff` },
  ],
  interfaces: [
    {
      url: `http://a,b:c/${HOSTILE}`,
      protocolBinding: `JSON,RPC::${HOSTILE}`,
      protocolVersion: '1.0',
      tenant: HOSTILE,
      state: 'Inconclusive',
      reason: 'ProbeInconclusive',
      message: `${HOSTILE} </failure><testcase name="forged"/> \udc00 100%`,
      evidence: { errorInfoReason: HOSTILE, httpStatus: 500 },
    },
    {
      url: 'http://ok.example/a2a',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      state: 'Verified',
      reason: 'Verified',
      message: HOSTILE,
      evidence: {},
    },
  ],
};
