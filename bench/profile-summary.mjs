// Summarises a V8 CPU profile (bench/.work/profiles/*.cpuprofile, or node --cpu-prof):
// self time by package or file, and the functions with the most self time.
//   node bench/profile-summary.mjs bench/.work/profiles/me.cpuprofile [rows]
import { readFileSync } from 'node:fs';

const [file, rowsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-summary.mjs FILE.cpuprofile [rows]');
  process.exit(2);
}
const rows = Number(rowsArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map();
for (const [i, id] of profile.samples.entries()) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));

const where = (url) => {
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (!url) return '(native / V8)';
  return url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
};
const byPlace = new Map();
const byFunction = new Map();
let total = 0;
for (const [id, micros] of selfMicros) {
  const { callFrame } = nodes.get(id);
  total += micros;
  const place = where(callFrame.url);
  byPlace.set(place, (byPlace.get(place) ?? 0) + micros);
  const name = `${callFrame.functionName || '(anonymous)'}  ${place}:${callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
}
const idle = [...selfMicros]
  .filter(([id]) => nodes.get(id).callFrame.functionName === '(idle)')
  .reduce((sum, [, micros]) => sum + micros, 0);
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${(micros / 1000).toFixed(1).padStart(9)} ms ${((100 * micros) / (total - idle)).toFixed(1).padStart(5)}%  ${name}`);
  }
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled, ${(idle / 1000).toFixed(0)} ms idle; shares below are of the busy time`);
print('Self time by package or file', byPlace);
print('Functions with the most self time', byFunction);
