// Lease leader election between two electors on a real Lease (short timings to keep it quick).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { KubeClient } from '../../src/kube/client.js';
import { LeaderElector } from '../../src/kube/leader-election.js';
import { ApiLeaseStore, type LeaseStore } from '../../src/kube/lease-store.js';

let cluster: Cluster;
let client: KubeClient;
let ns: string;

const timings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 400 };

function candidate(identity: string, lease: string, releaseOnCancel: boolean) {
  const events: [string, number][] = [];
  const store = new ApiLeaseStore(client, ns, lease);
  // When each write of the Lease was sent: a write still in flight at the kill may land after it.
  const writesSent: number[] = [];
  const lock: LeaseStore = {
    get: (signal) => store.get(signal),
    create: (spec, signal) => (writesSent.push(Date.now()), store.create(spec, signal)),
    update: (rv, spec, signal) => (writesSent.push(Date.now()), store.update(rv, spec, signal)),
  };
  const elector = new LeaderElector({
    lock,
    identity,
    releaseOnCancel,
    ...timings,
    onStartedLeading: () => events.push(['started', Date.now()]),
    onStoppedLeading: () => events.push(['stopped', Date.now()]),
  });
  const stop = new AbortController();
  const done = elector.run(stop.signal);
  const leading = () => events.some(([e]) => e === 'started') && !events.some(([e]) => e === 'stopped');
  return {
    elector,
    events,
    stop,
    done,
    leading,
    startedAt: () => events.find(([e]) => e === 'started')?.[1],
    lastWriteSent: () => writesSent.at(-1),
  };
}

async function until(what: string, pred: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function holder(lease: string): Promise<string | undefined> {
  const l = await client.get<{ spec?: { holderIdentity?: string } }>(
    `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${lease}`,
  );
  return l.spec?.holderIdentity;
}

before(async () => {
  cluster = await useCluster();
  client = new KubeClient(cluster.kc);
  ns = await cluster.createNamespace('klease');
});

after(() => client.close());

describe('LeaderElector on a real Lease', () => {
  test('one leads; killed without release, the standby takes over after the lease duration', async () => {
    const a = candidate('a', 'no-release', false);
    await until('a leads', a.leading);
    const b = candidate('b', 'no-release', false);
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal(b.leading(), false, 'standby does not lead while a renews');
    assert.equal(await holder('no-release'), 'a');

    const killedAt = Date.now();
    a.stop.abort(); // like a crashed process: no release
    await a.done;
    await until('b takes over', b.leading, 10_000);
    const took = b.startedAt()! - killedAt;
    // Expired by b's own clock, which starts when b sees a's last renewal, itself no earlier than
    // a sent it: b leads no sooner than a lease duration after a's last write was sent (however
    // long that write and the kill took on a loaded machine). At most leaseDuration + a jittered
    // retry period (2.2 × retryPeriod) + slack after the kill.
    const sinceRenewal = b.startedAt()! - a.lastWriteSent()!;
    assert.ok(sinceRenewal >= timings.leaseDurationMs, `led ${sinceRenewal} ms after a's last renewal`);
    assert.ok(took <= timings.leaseDurationMs + 2.2 * timings.retryPeriodMs + 1_000, `took ${took} ms`);
    assert.equal(await holder('no-release'), 'b');
    b.stop.abort();
    await b.done;
  });

  test('with release on shutdown the standby takes over at once', async () => {
    const a = candidate('a', 'release', true);
    await until('a leads', a.leading);
    const b = candidate('b', 'release', true);
    await new Promise((r) => setTimeout(r, 1_000));
    const stoppedAt = Date.now();
    a.stop.abort();
    await a.done;
    assert.equal(await holder('release'), '', 'holder cleared');
    await until('b takes over', b.leading, 5_000);
    const took = b.startedAt()! - stoppedAt;
    assert.ok(took <= 2.2 * timings.retryPeriodMs + 500, `took ${took} ms`);
    b.stop.abort();
    await b.done;
  });
});
