// The core's vectors under Node through the JavaScript package, compared decision by decision with
// the native program's trace:
//   node test/js/vectors_node_test.mjs PACKAGE_DIR NATIVE_TRACE
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {compareTraces, runVectors} from './vectors_runner.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [pkg, nativeTrace] = process.argv.slice(2);
if (!pkg || !nativeTrace) {
  console.error('usage: vectors_node_test.mjs PACKAGE_DIR NATIVE_TRACE');
  process.exit(2);
}
const {loadCore} = await import(pathToFileURL(path.join(path.resolve(pkg), 'core.mjs')).href);
const vectors = JSON.parse(fs.readFileSync(path.join(here, '..', 'core', 'vectors', 'vectors.json'), 'utf8'));
const core = await loadCore();
const result = runVectors(core, vectors);
for (const f of result.failures) console.error(`FAIL ${f.name}: ${f.why}`);
const diffs = compareTraces(fs.readFileSync(nativeTrace, 'utf8').split('\n'), result.traces);
for (const d of diffs) console.error(`DIFFERS ${d}`);
console.log(`node vectors: ${result.passed} passed, ${result.failed} failed; ${diffs.length ? `${diffs.length} differ from native` : 'every decision identical to native'}`);
process.exit(result.failed || diffs.length || !result.passed ? 1 : 0);
