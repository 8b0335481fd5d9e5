// keel's JavaScript package as one more entry of the peer frameworks' harness (shared/bench/peers):
// the same mock, task, `add` tool, timing and verification as its baseline and framework scripts.
// Copy this file into the harness's bench/ folder as keel.mjs, then, with the package built
// (make test-wasm):
//   KEEL_JS_PACKAGE=/path/to/keel/build/wasm/keel-js MOCK_ARGS='{"a":{n},"b":2}' node run-all.mjs keel.mjs baseline.mjs ai-sdk.mjs ...
// MOCK_ARGS makes each round's call differ: keel's guards block a call repeated with the very same
// arguments, which the harness's default task asks for.
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {BASE_URL, MODEL, API_KEY, INSTRUCTIONS, TASK, TOOL_DESC, ADD_JSON_SCHEMA, STREAM, N, add, bench, label} from './common.mjs';

const pkg = process.env.KEEL_JS_PACKAGE;
if (!pkg) throw new Error('set KEEL_JS_PACKAGE to the built package (build/wasm/keel-js)');
const {createAgent} = await import(pathToFileURL(path.join(pkg, 'keel.mjs')).href);
const agent = await createAgent({
  model: {baseUrl: BASE_URL, apiKey: API_KEY, name: MODEL, stream: STREAM},
  systemPrompt: INSTRUCTIONS,
  maxRounds: N + 2,
  tools: [{name: 'add', description: TOOL_DESC, parameters: ADD_JSON_SCHEMA, readOnly: true, run: ({a, b}) => String(add(a, b))}],
});

async function runOnce() {
  const r = await agent.run(TASK);
  if (r.error) throw new Error(`${r.error.kind}: ${r.error.message}`);
  return r.answer;
}

await bench(label('keel (wasm core, js host)'), '0.1.0', runOnce);
process.exit(0);
