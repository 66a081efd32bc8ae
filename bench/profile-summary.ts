/**
 * Summarises a V8 .cpuprofile (`node --cpu-prof`, e.g. the operator under
 * `npm run bench -- --operator-node-args="--cpu-prof --cpu-prof-dir=DIR"`): self time per
 * function, per file and per package, time per nearest own (src/) function on the stack (and,
 * for samples with none, the packages on the stack and the callback that entered them), and
 * inclusive time of the functions named with --focus.
 *
 *   npx tsx bench/profile-summary.ts DIR/CPU.*.cpuprofile [--top 40] [--focus name,name]
 *     [--from s] [--to s]   only the samples between these seconds after the profile started
 *                           (e.g. the steady-state window, from the bench's own timings)
 *
 * The operator runs bundled (scripts/build.ts): frames in a bundle with a source map beside it are
 * named by their original file and line (src/…, node_modules/<package>/…), so the tables group
 * by package as they would unbundled.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
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

const maps = new Map<string, { map: SourceMap; dir: string } | null>();

/** The frame in its original source when its file is a bundle with a linked .map beside it. */
function original(f: CallFrame): CallFrame {
  if (!f.url.startsWith('file://')) return f;
  let entry = maps.get(f.url);
  if (entry === undefined) {
    const path = fileURLToPath(f.url);
    entry = existsSync(`${path}.map`)
      ? { map: new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')) as never), dir: dirname(path) }
      : null;
    maps.set(f.url, entry);
  }
  if (!entry) return f;
  const at = entry.map.findEntry(f.lineNumber, f.columnNumber) as {
    originalSource?: string;
    originalLine?: number;
  };
  if (!at.originalSource) return f;
  const source = at.originalSource.startsWith('file://')
    ? at.originalSource
    : pathToFileURL(resolve(entry.dir, at.originalSource)).href;
  return { ...f, url: source, lineNumber: at.originalLine ?? f.lineNumber };
}

function shortFile(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.lastIndexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  const src = url.lastIndexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
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
  const own = Math.max(url.lastIndexOf('/dist/'), url.lastIndexOf('/src/'));
  if (own >= 0)
    return url
      .slice(own + 1)
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
  // Each sample also charged to the nearest of the operator's own functions on its stack: who
  // asked for the library, node and native time the self-time tables show only where it was
  // spent. A sample with no own frame (a socket callback, a timer, GC) goes to its leaf's package.
  const byOwn = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const label = (f: CallFrame) =>
    `${f.functionName || '(anonymous)'} ${shortFile(f.url)}:${f.lineNumber + 1}`;
  // A sample with no own frame is a callback the event loop entered directly (a socket read, a
  // timer, an immediate): charged to the packages on its stack and to the callback that entered
  // it, which names the work (e.g. undici's onParserTimeout: idle keep-alive connections closed).
  const byLibrary = new Map<string, number>();
  const byEntry = new Map<string, number>();
  const scheduler = new Set([
    '(root)',
    'processTicksAndRejections',
    'runMicrotasks',
    'processTimers',
    'listOnTimeout',
    'processImmediate',
  ]);
  const entered = (frames: CallFrame[]): { libraries: string; entry: string } => {
    const packages = new Set(frames.map((c) => pkg(c.url)));
    const libraries =
      [...packages]
        .filter((k) => k !== 'node: internals' && k !== '(native/gc/idle)')
        .sort()
        .join(' + ') || 'node only';
    const first = frames.findLast((c) => !scheduler.has(c.functionName));
    return { libraries, entry: first ? label(first) : '(scheduler)' };
  };
  /** The sample's stack, leaf first, each frame in its original source. */
  const stack = (id: number): CallFrame[] => {
    const frames: CallFrame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      frames.push(original(byId.get(cur)!.callFrame));
    return frames;
  };
  const isOwn = (f: CallFrame) => f.url.includes('/src/') && !f.url.includes('/node_modules/');
  for (const [id, us] of self) {
    const f = original(byId.get(id)!.callFrame);
    if (f.functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    add(byFn, label(f), us);
    add(byFile, shortFile(f.url), us);
    add(byPkg, pkg(f.url), us);
    const frames = stack(id);
    const o = frames.find(isOwn);
    add(byOwn, o ? label(o) : `(no own frame) ${pkg(f.url)}`, us);
    if (!o) {
      const { libraries, entry } = entered(frames);
      add(byLibrary, libraries, us);
      add(byEntry, `${entry} [${libraries}]`, us);
    }
  }
  console.log(
    `${file}: ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s wall, ${(total / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle`,
  );
  table('self time per package', byPkg, total, top);
  table('self time per file', byFile, total, top);
  table('self time per function', byFn, total, top);
  table('time per nearest own function (src/)', byOwn, total, top);
  table('no own frame: packages on the stack', byLibrary, total, top);
  table('no own frame: the callback the event loop entered', byEntry, total, top);
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
