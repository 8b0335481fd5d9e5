// The core's vectors in Chromium through the JavaScript package, compared decision by decision
// with the native program's trace:
//   build/npm/node_modules/.bin/node test/js/vectors_browser_test.mjs PACKAGE_DIR NATIVE_TRACE
// PACKAGE_DIR must lie inside the repository (the page loads it from the static server).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {launchBrowser, watchdog} from '../web/support.mjs';
import {compareTraces} from './vectors_runner.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const [pkg, nativeTrace] = process.argv.slice(2);
if (!pkg || !nativeTrace) {
  console.error('usage: vectors_browser_test.mjs PACKAGE_DIR NATIVE_TRACE');
  process.exit(2);
}
const pkgUrl = '/' + path.relative(root, path.resolve(pkg)).split(path.sep).join('/');
const TYPES = {'.mjs': 'text/javascript', '.js': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm', '.html': 'text/html'};
const PAGE = `<!doctype html><meta charset="utf-8"><title>vectors</title><script type="module">
import {loadCore} from '${pkgUrl}/core.mjs';
import {runVectors} from '/test/js/vectors_runner.mjs';
window.runAll = async () => {
  const vectors = await (await fetch('/test/core/vectors/vectors.json')).json();
  const core = await loadCore();
  return runVectors(core, vectors);
};
window.ready = true;
</script>`;

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname === '/') {
    res.writeHead(200, {'content-type': 'text/html'}).end(PAGE);
    return;
  }
  const file = path.resolve(root, '.' + decodeURIComponent(url.pathname));
  if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {'content-type': TYPES[path.extname(file)] || 'application/octet-stream'});
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
let browser = null;
const guard = watchdog(90000, async () => {
  await browser?.close();
  server.close();
});
let code = 1;
try {
  browser = await launchBrowser();
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.ready === true, null, {timeout: 30000});
  const result = await page.evaluate(() => window.runAll());
  for (const f of result.failures) console.error(`FAIL ${f.name}: ${f.why}`);
  for (const e of errors) console.error(`page error: ${e}`);
  const diffs = compareTraces(fs.readFileSync(nativeTrace, 'utf8').split('\n'), result.traces);
  for (const d of diffs) console.error(`DIFFERS ${d}`);
  console.log(`chromium vectors: ${result.passed} passed, ${result.failed} failed; ${diffs.length ? `${diffs.length} differ from native` : 'every decision identical to native'}`);
  code = result.failed || diffs.length || !result.passed || errors.length ? 1 : 0;
} catch (e) {
  console.error(`chromium vectors: ${e.stack || e}`);
} finally {
  clearTimeout(guard);
  await browser?.close();
  server.close();
}
process.exit(code);
