/**
 * Summarises a V8 .cpuprofile (`node --cpu-prof`, e.g. the operator under
 * `npm run bench -- --operator-node-args="--cpu-prof --cpu-prof-dir=DIR"`): self time per
 * function, per file and per package, and inclusive time of the functions named with --focus.
 *
 *   npx tsx bench/profile-summary.ts DIR/CPU.*.cpuprofile [--top 40] [--focus name,name]
 *     [--from s] [--to s]   only the samples between these seconds after the profile started
 *                           (e.g. the steady-state window, from the bench's own timings)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function shortFile(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}

function pkg(url: string): string {
  if (!url) return '(native/gc/idle)';
  if (url.startsWith('node:')) return 'node: internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0)
    return url
      .slice(dist + 1)
      .split('/')
      .slice(0, 2)
      .join('/');
  return url;
}

function table(title: string, m: Map<string, number>, total: number, top: number): void {
  console.log(`\n${title}`);
  const rows = [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [k, us] of rows)
    console.log(
      `${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`,
    );
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string' },
    focus: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
  },
});
const top = Number(values.top ?? 40);
for (const file of positionals) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  const from = Number(values.from ?? 0) * 1e6;
  const to = values.to === undefined ? Infinity : Number(values.to) * 1e6;
  let at = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    at += dt;
    if (at >= from && at < to) self.set(id, (self.get(id) ?? 0) + dt);
  });
  let total = 0;
  let idle = 0;
  const byFn = new Map<string, number>();
  const byFile = new Map<string, number>();
  const byPkg = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    add(byFn, `${f.functionName || '(anonymous)'} ${shortFile(f.url)}:${f.lineNumber + 1}`, us);
    add(byFile, shortFile(f.url), us);
    add(byPkg, pkg(f.url), us);
  }
  console.log(
    `${file}: ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s wall, ${(total / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle`,
  );
  table('self time per package', byPkg, total, top);
  table('self time per file', byFile, total, top);
  table('self time per function', byFn, total, top);
  // Inclusive time of named functions (each sample counted once per focus name on its stack).
  for (const name of values.focus?.split(',') ?? []) {
    let incl = 0;
    for (const [id, us] of self) {
      if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        if (byId.get(cur)!.callFrame.functionName === name) {
          incl += us;
          break;
        }
      }
    }
    console.log(`inclusive ${name}: ${(incl / 1000).toFixed(0)} ms (${((100 * incl) / total).toFixed(1)} %)`);
  }
}
