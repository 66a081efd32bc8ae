// Hostile text on its way out (issue 12 item 6): real SDK agents in pods whose cards and answers
// carry ANSI escapes, a `\n::error::` workflow command and a right-to-left override, and the
// real operator process. Nothing raw reaches status (kubectl -o json), Events or the operator's
// log file; credentials in card URLs are redacted wherever a URL is shown; and an agent whose
// every error echoes the probe's random task id does not change its status on every probe.
//   answers  every GetTask fails with a hostile message (echoing the task id) and ErrorInfo
//            reason, over JSON-RPC (error.message), REST (error body) and gRPC (status details)
//   loudcard a card whose name and description are hostile and whose URL carries ?token=…
//   loudurl  a card whose interface URL path carries the hostile text itself
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startAgentPod } from '../harness/agent-pod.js';
import { agentManifest, apply, healthyAgentConfig } from '../harness/manifests.js';
import { scenario } from '../harness/scenario.js';
import { condition, getAgent, waitAgent, type AgentView } from '../harness/wait.js';
import { agentEvents, log, sleep, StatusRecorder } from './support.js';

const TAG = 'hostile-output';
const HOSTILE = '\u001b[31mred\u001b[0m\n::error::pwned\u202eevil\u0007\u009b';
const TOKEN = 'SECRETQ1tok';
const PERIOD_S = 5;
const PROBE = { periodSeconds: PERIOD_S, timeoutSeconds: 2, failureThreshold: 2 };
// A raw control or bidi character: exactly what must never get through.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function card(name: string, interfaces: [string, string][]) {
  return {
    name,
    description: `hostile ${HOSTILE}`,
    version: '1.0.0',
    supportedInterfaces: interfaces.map(([url, protocolBinding]) => ({
      url,
      protocolBinding,
      protocolVersion: '1.0',
    })),
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

const spec = (app: string, ports = [{ name: 'http', port: 8080 }]) => ({
  selector: { matchLabels: { app } },
  ports,
  card: { port: 'http' },
  probe: PROBE,
});

const s = scenario('hostile-out', {
  async setup({ cluster, ns, pods }) {
    const svc = (app: string) => `${app}.${ns}.svc`;
    const start = (app: string, config: Parameters<typeof startAgentPod>[1]['config']) =>
      startAgentPod(cluster, { namespace: ns, name: `${app}-0`, labels: { app }, config });
    pods.push(
      await start(
        'answers',
        healthyAgentConfig(svc('answers'), {
          getTaskError: { message: `${HOSTILE} task {{TASK_ID}} exploded`, reason: `BAD${HOSTILE}` },
        }),
      ),
      await start('loudcard', {
        http: { port: 8080 },
        card: {
          serve: 'json',
          json: card(`loud${HOSTILE}`, [
            [`http://${svc('loudcard')}:8080/a2a/jsonrpc?token=${TOKEN}&tenant=acme`, 'JSONRPC'],
          ]),
        },
      }),
      await start('loudurl', {
        http: { port: 8080 },
        card: {
          serve: 'json',
          json: card('loudurl', [[`http://${svc('loudurl')}:8080/a2a/rest/${HOSTILE}`, 'HTTP+JSON']]),
        },
      }),
    );
    await apply(
      cluster,
      agentManifest(ns, 'answers', {
        ...spec('answers', [
          { name: 'http', port: 8080 },
          { name: 'grpc', port: 9090 },
        ]),
      }),
      agentManifest(ns, 'loudcard', spec('loudcard')),
      agentManifest(ns, 'loudurl', spec('loudurl')),
    );
  },
});

/** Every string in `status`, the fields naming the card's interfaces included. */
function statusTexts(a: AgentView): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
  };
  walk(a.status, '');
  return out;
}

function assertClean(where: string, texts: string[]): void {
  for (const t of texts) {
    assert.doesNotMatch(t, RAW, `${where}: raw control character in ${JSON.stringify(t)}`);
    assert.ok(!t.includes(TOKEN), `${where}: the URL's token in ${JSON.stringify(t)}`);
  }
}

const settled = (a: AgentView) =>
  condition(a, 'Reconciling')?.status === 'False' &&
  (a.status?.interfaces ?? []).length > 0 &&
  (a.status?.interfaces ?? []).every((i) => i.state !== 'Pending');

describe('hostile text from cards and answers', () => {
  test('every agent gets a verdict; the hostile text shows escaped, never raw, in status', async () => {
    const answers = await waitAgent(s.cluster, s.ns, 'answers', 'settled on its failures', settled, 120_000);
    for (const i of answers.status!.interfaces!) {
      assert.equal(i.state === 'Verified', false, `${i.protocolBinding}: ${i.message}`);
      log(TAG, `answers ${i.protocolBinding}: ${i.state}: ${i.message}`);
    }
    // The hostile text did arrive (escaped): the test is not vacuous.
    assert.ok(
      answers.status!.interfaces!.some((i) => i.message.includes('\\u{1b}[31mred')),
      JSON.stringify(answers.status!.interfaces),
    );
    const verdict = (a: AgentView) =>
      condition(a, 'CardValid')?.status === 'False' ||
      Boolean(a.status?.interfaces?.[0] && a.status.interfaces[0].state !== 'Pending');
    const loudcard = await waitAgent(s.cluster, s.ns, 'loudcard', 'a verdict', verdict, 120_000);
    log(
      TAG,
      `loudcard: ${JSON.stringify(loudcard.status?.conditions?.map((c) => [c.type, c.reason, c.message]))}`,
    );
    const loudurl = await waitAgent(s.cluster, s.ns, 'loudurl', 'a verdict', verdict, 120_000);
    log(TAG, `loudurl: ${condition(loudurl, 'InterfacesVerified')?.message}`);
    for (const a of [answers, loudcard, loudurl]) assertClean(`status of ${a.metadata.name}`, statusTexts(a));
  });

  test('Events and the operator log carry no raw control character and no URL token', async () => {
    for (const name of ['answers', 'loudcard', 'loudurl']) {
      const events = await agentEvents(s.cluster, s.ns, name);
      assertClean(
        `Events of ${name}`,
        events.map((e) => e.note),
      );
    }
    // The log is JSON lines: pino escapes C0 itself, so the file is checked as written.
    const lines = readFileSync(s.operator.logFile, 'utf8').split('\n');
    assertClean('operator log', lines);
  });

  test('status does not change across three probe periods (the echoed task id is normalised)', async () => {
    await waitAgent(s.cluster, s.ns, 'answers', 'settled', settled, 120_000);
    const recorder = new StatusRecorder(s.cluster, s.ns, 'answers');
    await recorder.start();
    try {
      await sleep(3 * PERIOD_S * 1000 + 2000);
    } finally {
      recorder.stop();
    }
    const after = await getAgent(s.cluster, s.ns, 'answers');
    const rvs = [...new Set(recorder.versions.map((v) => v.rv))];
    log(TAG, `answers: ${rvs.length} status version(s) over ${3 * PERIOD_S + 2}s`);
    // The watch's first event is the current object; any further one is a write.
    assert.equal(rvs.length, 1, JSON.stringify(recorder.versions.map((v) => v.status?.interfaces)));
    assert.ok(!JSON.stringify(after.status).match(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/));
  });
});
