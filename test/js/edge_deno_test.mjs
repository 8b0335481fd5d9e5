// The edge handler under Deno (build/npm's `deno`), driven by the official openai client: the same
// package as under Node, in a second server runtime.
//   build/npm/node_modules/.bin/node test/js/edge_deno_test.mjs PACKAGE_DIR
import {spawn} from 'node:child_process';
import path from 'node:path';
import {createRequire} from 'node:module';
import {Checks, ROOT, watchdog} from '../web/support.mjs';
import {startMockModel} from '../web/mock_model.mjs';

const pkg = path.resolve(process.argv[2] || path.join(ROOT, 'build', 'wasm', 'keel-js'));
const modules = process.env.KEEL_NPM_MODULES || path.join(ROOT, 'build', 'npm', 'node_modules');
const require = createRequire(path.join(modules, 'noop.js'));
const OpenAI = require('openai').default ?? require('openai');
const deno = path.join(modules, '.bin', 'deno');
const t = new Checks('edge (deno)');
let child = null;
const guard = watchdog(90000, () => child?.kill('SIGKILL'));

const model = await startMockModel({
  sum: (turn) => (turn.step === 0 ? {tool_calls: [{id: 'c1', name: 'add', arguments: {a: 20, b: 22}}]}
    : {text: `It is ${turn.toolResults[0]}.`, pieces: 3}),
});
const KEY = 'deno-edge-key';
try {
  child = spawn(deno, ['run', '--quiet', '--no-prompt', '--allow-net=127.0.0.1', `--allow-read=${ROOT}`,
    path.join(ROOT, 'test', 'js', 'edge_deno_server.mjs'), pkg, model.baseUrl, KEY],
  {stdio: ['ignore', 'pipe', 'inherit'], env: {PATH: process.env.PATH, HOME: process.env.HOME || '/tmp', DENO_NO_UPDATE_CHECK: '1'}});
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`deno exited with ${code} before listening`)));
  });
  const client = new OpenAI({baseURL: `http://127.0.0.1:${port}/v1`, apiKey: KEY, maxRetries: 0});
  const whole = await client.chat.completions.create({model: 'keel-deno', messages: [{role: 'user', content: '[[scn:sum]] add 20 and 22'}]});
  t.equal(whole.choices[0].message.content, 'It is 42.', 'under Deno the openai client completes a run with a tool round');
  const stream = await client.chat.completions.create({model: 'keel-deno', stream: true, messages: [{role: 'user', content: '[[scn:sum]] add 20 and 22'}]});
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content || '';
  t.equal(text, 'It is 42.', 'and streams the answer');
  const wrong = await new OpenAI({baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'nope', maxRetries: 0}).models.list().catch((e) => e);
  t.equal(wrong?.status, 401, 'a wrong key is refused under Deno too');
} catch (e) {
  t.ok(false, `unexpected: ${e.stack || e}`);
} finally {
  clearTimeout(guard);
  child?.kill();
  await model.close();
}
process.exit(t.finish());
