// Run (after the wasm build, cmake --build build/wasm):
//   build/npm/node_modules/.bin/node test/js/browser_agent_test.mjs [PACKAGE_DIR]
// PACKAGE_DIR defaults to build/wasm/keel-js and must lie inside the repository.
//
// The browser agent page (web/agent/) end to end in Debian's chromium, with no keel server: the
// repository is served statically on 127.0.0.1 and a scripted OpenAI-compatible model with CORS
// headers (cors_mock_model.mjs) answers on another port. Each step is a run in the page:
//   multi   - file_write (approval: Allow clicked) into the private file system, file_read of it,
//             then an answer streamed in pieces; the tool cards, the Markdown answer, the usage and
//             the session's messages in IndexedDB are checked;
//   garbage - broken call markup every time: the run fails visibly (run_failed);
//   throws  - file_read of a missing file throws: an error card, and the run goes on to its answer;
//   cors    - fetch_url of a 127.0.0.1 server that sends no CORS headers is refused (an error card),
//             one of a server that does is read (Allow pressed from the keyboard);
//   plan    - a plan of memory_save and memory_search fills the plan board;
//   ask     - ask_user: the question is answered in the page and reaches the model;
//   slow    - a long stream stopped with the Stop button ends as aborted;
//   quota   - the store's third append rejects with QuotaExceededError: an `error` {source: store}
//             event is shown, the run fails, and what was appended before is still in IndexedDB;
// and the store itself: an append that cannot be stored keeps nothing of itself; and the tools'
// own refusals ('..', absolute paths, other URL schemes, ask_user without a page prompt).
// Also: no page error, console error (but the browser's own report of the refused request), CSP
// violation or inline handler. Screenshots go to $KEEL_WEB_ARTIFACTS (build/web-artifacts).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {Checks, inlineHandlers, launchBrowser, screenshot, watchPage, watchdog, withTimeout} from '../web/support.mjs';
import {startCorsMockModel} from './cors_mock_model.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const pkgDir = path.resolve(process.argv[2] || path.join(root, 'build', 'wasm', 'keel-js'));
if (!pkgDir.startsWith(root + path.sep) || !fs.existsSync(path.join(pkgDir, 'keel_core.wasm'))) {
  console.error(`browser agent: no built package at ${pkgDir} (inside the repository); run cmake --build build/wasm first`);
  process.exit(2);
}
const pkgUrl = '/' + path.relative(root, path.join(pkgDir, 'keel.mjs')).split(path.sep).join('/');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.json': 'application/json', '.wasm': 'application/wasm',
};

// The repository, read-only, on 127.0.0.1.
function startRepoServer() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const file = path.resolve(root, '.' + decodeURIComponent(url.pathname));
    if (req.method !== 'GET' || !file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, {'content-type': 'text/plain'}).end('not found');
      return;
    }
    res.writeHead(200, {'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store'});
    fs.createReadStream(file).pipe(res);
  });
  return listen(server);
}

// A server that answers but sends no CORS headers: a page on another origin may not read it.
function startNoCorsServer() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, {'content-type': 'text/plain'}).end('a secret the page must not read');
  });
  return listen(server);
}

async function listen(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const NOTE = 'hello from keel';
const ANSWER = `The file says **${NOTE}**, read back from the private folder.`;
const BROKEN = '<tool_call>{"name": "file_read", "arguments": {';
const PLAN = {
  plan: [
    {tool: 'memory_save', args: {text: 'the build uses -j1', tags: ['build']}, save_as: 'saved', why: 'remember it'},
    {tool: 'memory_search', args: {query: 'build'}, save_as: 'found', why: 'find it again'},
  ],
  reply: 'Saved and found: {{tool.found.result}}',
};
const call = (id, name, args) => ({tool_calls: [{id, name, arguments: args}]});

function scenarios(noCors, self) {
  return {
    multi: (turn) => [
      call('call_w1', 'file_write', {path: 'notes/hello.txt', content: NOTE}),
      call('call_r1', 'file_read', {path: 'notes/hello.txt'}),
      {text: ANSWER, pieces: 6, piece_delay_ms: 60},
    ][Math.min(turn.step, 2)],
    garbage: () => ({text: BROKEN}),
    throws: (turn) => (turn.step === 0 ? call('call_m1', 'file_read', {path: 'missing/nothing.txt'}) :
      {text: `The file is missing: ${turn.toolResults.join(' ').slice(0, 80)}`}),
    cors: (turn) => [
      call('call_f1', 'fetch_url', {url: `${noCors}/secret`}),
      call('call_f2', 'fetch_url', {url: `${self()}/pub/hello.txt`}),
      {text: 'One server refused, the other answered.'},
    ][Math.min(turn.step, 2)],
    plan: (turn) => (turn.step === 0 ? {text: JSON.stringify(PLAN)} : {text: 'The plan is done.'}),
    ask: (turn) => (turn.step === 0 ? call('call_q1', 'ask_user', {question: 'Which colour?'}) :
      {text: `You said: ${turn.toolResults.join(' ')}`}),
    quota: (turn) => (turn.step === 0 ? call('call_l1', 'file_list', {}) : {text: 'Listed the folder.'}),
    slow: () => ({text: 'word '.repeat(40), pieces: 40, piece_delay_ms: 50}),
    default: () => ({text: 'no scenario'}),
  };
}

const t = new Checks('browser agent');
let browser = null;
let repo = null;
let noCors = null;
let model = null;
const cleanup = async () => {
  await browser?.close().catch(() => {});
  await Promise.all([repo?.close(), noCors?.close(), model?.close()]);
};
const guard = watchdog(150000, cleanup);

// Types a task, sends it with Enter, and waits for the new turn to end; resolves to the turn.
async function runTask(page, text, during = async () => {}) {
  const turns = page.locator('[data-testid="turn"]');
  const before = await turns.count();
  await page.fill('[data-testid="task-input"]', text);
  await page.press('[data-testid="task-input"]', 'Enter');
  await withTimeout(page.waitForFunction((n) => document.querySelectorAll('[data-testid="turn"]').length > n, before), 10000, `the turn of ${text}`);
  const turn = turns.nth(before);
  await during(turn);
  await turn.locator('[data-testid="run-finished"], [data-testid="run-failed"]').first().waitFor({timeout: 30000});
  await page.waitForFunction(() => !window.keelAgentPage.busy, null, {timeout: 10000});
  return turn;
}

async function newSession(page) {
  await page.click('[data-testid="new-session"]');
  t.equal(await page.textContent('[data-testid="session-id"]'), 'new', 'New starts a new session');
}

const cardOf = (turn, callId) => turn.locator(`[data-testid="tool-card"][data-call-id="${callId}"]`);

let code = 1;
try {
  repo = await startRepoServer();
  noCors = await startNoCorsServer();
  model = await startCorsMockModel(scenarios(noCors.origin, () => model.origin), {files: {'/pub/hello.txt': 'hello over cors'}});
  browser = await launchBrowser();
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen = await watchPage(page);
  // The browser reports the refused cross-origin read itself; that report is what the test provokes.
  const expectedConsole = (text) => text.includes(noCors.origin) || /ERR_FAILED/.test(text);
  const pageUrl = `${repo.origin}/web/agent/index.html?pkg=${encodeURIComponent(pkgUrl)}` +
    `&base=${encodeURIComponent(model.baseUrl)}&model=mock`;
  await page.goto(pageUrl);
  await page.waitForFunction(() => window.keelAgentPage?.ready === true, null, {timeout: 30000});
  t.equal(await page.textContent('[data-testid="run-status"]'), 'ready', 'the page loads the core and is ready');
  t.equal(await page.locator('[data-testid="tool-entry"]').evaluateAll((n) => n.map((x) => x.dataset.tool)),
    ['fetch_url', 'read_page', 'memory_save', 'memory_search', 'file_write', 'file_read', 'file_list', 'ask_user'], 'the browser tools are listed');

  // --- multi: approval, OPFS write and read, a streamed answer, the session in IndexedDB --------
  {
    const turn = await runTask(page, '[[scn:multi]] write a note and read it back', async (turn) => {
      const approval = turn.locator('[data-testid="approval"]');
      await approval.waitFor({timeout: 15000});
      t.equal(await approval.getAttribute('data-state'), 'pending', 'file_write waits for an approval in the page');
      t.ok((await approval.textContent()).includes('notes/hello.txt'), 'the approval shows the arguments');
      await turn.locator('[data-testid="approval-allow"]').click();
      // The answer streams: its bubble shows part of the text before the reply is complete.
      const partial = await withTimeout(page.waitForFunction(() => {
        const m = document.querySelector('[data-testid="round"][data-round="3"] [data-testid="assistant-msg"]');
        return m && m.dataset.state === 'streaming' && m.textContent.length > 0 ? m.textContent : false;
      }, null, {timeout: 15000, polling: 10}), 16000, 'the streamed answer').then((h) => h.jsonValue()).catch(() => '');
      t.ok(partial && !partial.includes('private folder.'), `the answer is shown while it streams (${JSON.stringify(partial)})`);
    });
    await screenshot(page, 'browser-agent-multi');
    t.equal(await turn.locator('[data-testid="approval"]').getAttribute('data-state'), 'allow', 'the approval card settles on allow');
    t.equal(await cardOf(turn, 'call_w1').getAttribute('data-status'), 'ok', 'file_write ran after the approval');
    t.equal(await cardOf(turn, 'call_r1').getAttribute('data-status'), 'ok', 'file_read ran');
    t.equal(await cardOf(turn, 'call_r1').locator('[data-testid="tool-result"]').textContent(), NOTE, 'file_read read what file_write wrote');
    const answer = turn.locator('[data-testid="assistant-msg"][data-state="final"]');
    t.equal(await answer.count(), 1, 'one final answer');
    t.ok((await answer.textContent()).includes(`The file says ${NOTE}`), 'the final answer is shown');
    t.equal(await answer.locator('strong').textContent(), NOTE, 'the answer is rendered as Markdown');
    const deltas = await page.evaluate(() => window.keelAgentPage.events.filter((e) => e.type === 'model_delta' && e.round === 3).length);
    t.ok(deltas >= 3, `the answer came in several model_delta events (${deltas})`);
    t.ok(Number(await page.textContent('[data-testid="usage-prompt"]')) > 0 &&
      Number(await page.textContent('[data-testid="usage-completion"]')) > 0, 'the token usage is shown');
    t.equal(model.requests.filter((r) => r.turn.name === 'multi').length, 3, 'three model calls');
    t.ok(model.requests.every((r) => r.origin === repo.origin), 'the model was called from the page (CORS origin sent)');
    const stored = await page.evaluate(async () => {
      const id = window.keelAgentPage.lastResult.sessionId;
      const messages = await window.keelAgentPage.store.load(id);
      const sessions = await window.keelAgentPage.store.listSessions();
      const dir = await navigator.storage.getDirectory();
      const file = await (await (await dir.getDirectoryHandle('notes')).getFileHandle('hello.txt')).getFile();
      return {id, roles: messages.map((m) => m.role), last: messages.at(-1)?.content, calls: messages.flatMap((m) => (m.tool_calls || []).map((c) => c.name)),
        listed: sessions.map((s) => s.id), count: sessions.find((s) => s.id === id)?.count, opfs: await file.text()};
    });
    t.equal(stored.roles, ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'], 'the session\'s messages are in IndexedDB');
    t.equal(stored.calls, ['file_write', 'file_read'], 'with both calls');
    t.equal(stored.last, ANSWER, 'and the answer');
    t.equal([stored.listed.includes(stored.id), stored.count], [true, 7], 'the session is listed with its message count');
    t.equal(stored.opfs, NOTE, 'the file is in the origin-private file system');
    t.equal(await page.textContent('[data-testid="session-id"]'), stored.id, 'the page shows the session id');

    // The stored session reopens from the list.
    await page.click(`[data-testid="session-open"][data-session="${stored.id}"]`);
    const history = page.locator('[data-testid="history"]');
    await history.waitFor({timeout: 5000});
    t.equal(await history.locator('[data-testid="tool-card"]').count(), 2, 'a reopened session shows its tool cards');
    t.ok((await history.textContent()).includes(`The file says ${NOTE}`), 'and its answer');
  }

  // --- garbage: broken call markup every time ends in a visible failure ----------------------
  {
    await newSession(page);
    const turn = await runTask(page, '[[scn:garbage]] do something');
    const failed = turn.locator('[data-testid="run-failed"]');
    t.equal(await failed.count(), 1, 'a model that answers garbage ends with run_failed in the page');
    t.ok(/model_output/.test(await failed.textContent()), `the failure names its kind (${await failed.textContent()})`);
    t.ok(await failed.isVisible(), 'the failure is visible');
    t.ok(await turn.locator('[data-testid="guard"]').count() >= 1, 'the guard that fired is shown');
    t.equal(await page.getAttribute('[data-testid="run-status"]', 'data-state'), 'failed', 'the status says failed');
    await screenshot(page, 'browser-agent-garbage');
  }

  // --- throws: a tool error is a result, the run goes on --------------------------------------
  {
    await newSession(page);
    const turn = await runTask(page, '[[scn:throws]] read a missing file');
    const card = cardOf(turn, 'call_m1');
    t.equal(await card.getAttribute('data-status'), 'error', 'a throwing tool shows an error result');
    t.ok((await card.locator('[data-testid="tool-result"]').textContent()).includes('does not exist'), 'with the tool\'s message');
    t.ok(await card.locator('[data-testid="tool-result"]').isVisible(), 'the error card opens by itself');
    t.equal(await turn.locator('[data-testid="run-finished"]').count(), 1, 'the run goes on and finishes');
    t.ok((await turn.locator('[data-testid="assistant-msg"][data-state="final"]').textContent()).includes('The file is missing'), 'the model saw the error');
  }

  // --- cors: a server without CORS headers is refused; one with them is read ----------------
  {
    await newSession(page);
    let approvals = 0;
    const turn = await runTask(page, '[[scn:cors]] fetch two pages', async (turn) => {
      // The first approval is clicked; the second is given from the keyboard (Allow has the focus).
      const first = turn.locator('[data-testid="approval"][data-call-id="call_f1"]');
      await first.waitFor({timeout: 15000});
      await first.locator('[data-testid="approval-allow"]').click();
      approvals += 1;
      const second = turn.locator('[data-testid="approval"][data-call-id="call_f2"]');
      await second.waitFor({timeout: 15000});
      await page.waitForFunction(() => document.activeElement?.dataset?.testid === 'approval-allow', null, {timeout: 5000});
      await page.keyboard.press('Enter');
      approvals += 1;
    });
    t.equal(approvals, 2, 'fetch_url asks before each request');
    const refused = cardOf(turn, 'call_f1');
    t.equal(await refused.getAttribute('data-status'), 'error', 'a fetch refused by CORS is an error result');
    const text = await refused.locator('[data-testid="tool-result"]').textContent();
    t.ok(/refused/.test(text) && /CORS/.test(text), `the error says it was refused, possibly by CORS (${text.slice(0, 120)})`);
    t.ok(!text.includes('must not read'), 'nothing of the refused body reaches the model');
    const read = cardOf(turn, 'call_f2');
    t.equal(await read.getAttribute('data-status'), 'ok', 'a server that allows the page is read');
    t.ok((await read.locator('[data-testid="tool-result"]').textContent()).includes('hello over cors'), 'with its body');
    t.equal(await turn.locator('[data-testid="run-finished"]').count(), 1, 'the run finishes');
    await screenshot(page, 'browser-agent-cors');
  }

  // --- plan: the plan board follows the steps -------------------------------------------------
  {
    await newSession(page);
    const turn = await runTask(page, '[[scn:plan]] remember the build note');
    t.ok(await page.isVisible('[data-testid="plan-panel"]'), 'the plan board appears with plan_step events');
    t.equal(await page.locator('[data-testid="plan-col-done"] [data-testid="plan-step"]').count(), 2, 'both steps end in Done');
    t.equal(await turn.locator('[data-testid="run-finished"]').count(), 1, 'the planned run finishes');
    t.ok((await turn.locator('[data-testid="assistant-msg"][data-state="final"]').textContent()).includes('Saved and found: - ['),
      'the plan\'s reply is filled from the search result');
    const notes = await page.evaluate(() => window.keelAgentPage.store.searchNotes('build'));
    t.equal(notes.map((n) => [n.text, n.tags]), [['the build uses -j1', ['build']]], 'memory_save stored the note in IndexedDB');
  }

  // --- ask: ask_user answered in the page ----------------------------------------------------
  {
    await newSession(page);
    const turn = await runTask(page, '[[scn:ask]] ask me', async (turn) => {
      const question = turn.locator('[data-testid="question"]');
      await question.waitFor({timeout: 15000});
      t.equal(await question.locator('[data-testid="question-text"]').textContent(), 'Which colour?', 'the question is shown');
      await page.waitForFunction(() => document.activeElement?.dataset?.testid === 'question-input', null, {timeout: 5000});
      await page.keyboard.type('blue');
      await page.keyboard.press('Enter');
    });
    t.ok((await turn.locator('[data-testid="assistant-msg"][data-state="final"]').textContent()).includes('You said: blue'), 'the answer reached the model');
  }

  // --- slow: Stop ends a streaming run --------------------------------------------------------
  {
    await newSession(page);
    const turn = await runTask(page, '[[scn:slow]] talk for a while', async (turn) => {
      await turn.locator('[data-testid="assistant-msg"][data-state="streaming"]').waitFor({timeout: 15000});
      await page.click('[data-testid="stop"]');
    });
    const failed = turn.locator('[data-testid="run-failed"]');
    t.ok(await failed.count() === 1 && /\(aborted\)/.test(await failed.textContent()), 'Stop ends the run as aborted');
    t.equal(await page.getAttribute('[data-testid="run-status"]', 'data-state'), 'aborted', 'the status says aborted, not failed');
    t.equal(await turn.locator('[data-testid="assistant-msg"]').getAttribute('data-state'), 'interrupted', 'the cut answer is marked interrupted');
  }

  // --- quota: a failing append ends the run and keeps what was stored ------------------------
  {
    await newSession(page);
    await page.evaluate(() => {
      const store = window.keelAgentPage.store;
      const append = store.append;
      window.__appends = {calls: 0, stored: 0};
      store.append = async (id, messages) => {
        window.__appends.calls += 1;
        if (window.__appends.calls === 3) throw new DOMException('the origin\'s storage quota is used up', 'QuotaExceededError');
        await append.call(store, id, messages);
        window.__appends.stored += messages.length;
      };
      window.__restoreAppend = () => { store.append = append; };
    });
    const turn = await runTask(page, '[[scn:quota]] list the files');
    const storeError = turn.locator('[data-testid="store-error"]');
    t.equal(await storeError.count(), 1, 'the store failure is shown');
    t.ok(/QuotaExceeded|quota/.test(await storeError.textContent()), `it names the quota (${await storeError.textContent()})`);
    const failed = turn.locator('[data-testid="run-failed"]');
    t.ok(await failed.count() === 1 && /\(store\)/.test(await failed.textContent()), 'the run fails with kind store');
    const after = await page.evaluate(async () => {
      window.__restoreAppend();
      const ev = window.keelAgentPage.events;
      const id = ev.find((e) => e.type === 'run_started').session_id;
      const messages = await window.keelAgentPage.store.load(id);
      return {stored: window.__appends.stored, kept: messages.map((m) => m.role),
        errorEvent: ev.some((e) => e.type === 'error' && e.source === 'store'),
        failedKind: ev.find((e) => e.type === 'run_failed')?.kind};
    });
    t.equal([after.errorEvent, after.failedKind], [true, 'store'], 'the events are error {source: store} and run_failed {kind: store}');
    t.equal(after.kept, ['system', 'user', 'assistant'], 'the messages appended before the failure are still in IndexedDB');
    t.equal(after.kept.length, after.stored, 'exactly those');
    await screenshot(page, 'browser-agent-quota');
  }

  // --- the store: an append is all or nothing --------------------------------------------------
  {
    const r = await page.evaluate(async () => {
      const store = window.keelAgentPage.store;
      const id = 'ses_atomic';
      await store.append(id, [{role: 'user', content: 'first'}]);
      let error = null;
      try {
        await store.append(id, [{role: 'assistant', content: 'kept?'}, {role: 'tool', content: 'x', metadata: {f: () => 1}}]);
      } catch (e) {
        error = {name: e.name, message: e.message, isDom: e instanceof DOMException};
      }
      const messages = await store.load(id);
      const listed = (await store.listSessions()).find((s) => s.id === id);
      return {error, contents: messages.map((m) => m.content), count: listed?.count};
    });
    t.equal([r.error?.name, r.error?.isDom], ['DataCloneError', true], 'a failed append rejects with the DOMException');
    t.equal([r.contents, r.count], [['first'], 1], 'and stores nothing of itself');
  }

  // --- the tools' own refusals, called directly in the page ------------------------------------
  {
    const r = await page.evaluate(async (pkg) => {
      const {builtinBrowserTools} = await import(new URL('./browser_tools.mjs', new URL(pkg, location.href)).href);
      const tools = Object.fromEntries(builtinBrowserTools().map((tool) => [tool.name, tool]));
      const attempt = async (name, args) => {
        try {
          return {ok: String(await tools[name].run(args, {}))};
        } catch (e) {
          return {error: e.message};
        }
      };
      return {
        page: await attempt('read_page', {selector: '[data-testid="tool-list"]'}),
        noMatch: await attempt('read_page', {selector: '#nothing-here'}),
        dotdot: await attempt('file_write', {path: 'notes/../../x.txt', content: 'x'}),
        absolute: await attempt('file_read', {path: '/etc/passwd'}),
        list: await attempt('file_list', {}),
        sub: await attempt('file_list', {dir: 'notes'}),
        scheme: await attempt('fetch_url', {url: 'file:///etc/passwd'}),
        ask: await attempt('ask_user', {question: 'anyone?'}),
        meta: builtinBrowserTools().map((tool) => [tool.name, Boolean(tool.readOnly), tool.risk]),
      };
    }, pkgUrl);
    t.ok(r.page.ok?.includes('fetch_url') && r.page.ok.includes('ask_user'), 'read_page reads the element a selector names');
    t.ok(/nothing on the page matches/.test(r.noMatch.error), 'read_page says when nothing matches');
    t.ok(/'\.\.' is refused/.test(r.dotdot.error), `'..' is refused (${r.dotdot.error})`);
    t.ok(/absolute/.test(r.absolute.error), `an absolute path is refused (${r.absolute.error})`);
    t.ok(r.list.ok?.split('\n').includes('notes/'), `file_list lists folders (${r.list.ok})`);
    t.equal(r.sub.ok, 'hello.txt (15 bytes)', 'file_list lists a folder\'s files with sizes');
    t.ok(/only http and https/.test(r.scheme.error), 'fetch_url refuses other schemes');
    t.ok(/nobody can be asked/.test(r.ask.error), 'ask_user without ask() is a clear error');
    t.equal(r.meta, [['fetch_url', false, 'medium'], ['read_page', true, 'low'], ['memory_save', false, 'low'], ['memory_search', true, 'low'],
      ['file_write', false, 'high'], ['file_read', true, 'low'], ['file_list', true, 'low'], ['ask_user', false, 'low']], 'read-only flags and risks');
  }

  // --- what must not happen --------------------------------------------------------------------
  await seen.collect();
  const problems = seen.problems.filter((p) => !(p.startsWith('console: ') && expectedConsole(p)));
  t.equal(problems, [], 'no page error, unexpected console error, CSP violation or dialog');
  t.equal(await inlineHandlers(page), [], 'no inline event handlers in the page');
  code = t.finish();
} catch (e) {
  console.error(`FAIL browser agent: ${e.stack || e}`);
  t.failures.push(String(e.message || e));
  t.finish();
  code = 1;
} finally {
  clearTimeout(guard);
  await cleanup();
}
console.log(code === 0 ? 'PASS browser agent end to end' : 'FAIL browser agent end to end');
process.exit(code);
