// The web UI end to end: `KEEL_BINARY serve` with a scripted OpenAI-compatible model server
// (mock_model.mjs), driven through Debian's chromium. Each step is a run whose model replies are
// scripted by a marker in the message:
//   hello - a streamed Markdown answer;
//   shell - a `shell` call (approval mode confirm) approved in the UI; the tool card shows "hi";
//   plan  - a two-step plan; the plan board fills and the answer is the hydrated reply;
//   ask   - an `ask_user` call; an option is clicked and the run finishes with it;
//   xss   - an fs_read of an HTML payload and an answer full of payloads: both render inert;
//   slow  - a long stream, aborted from the UI.
// The HUD shows the state and the round. Screenshots of each step go to $KEEL_WEB_ARTIFACTS.
// HOME and the XDG folders point into a temp folder; every child process is killed on exit.
//
// Usage: node test/web/e2e_test.mjs KEEL_BINARY   (see run.sh)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {spawn} from 'node:child_process';
import {Checks, WEB_DIR, inlineHandlers, launchBrowser, screenshot, watchPage, watchdog, withTimeout} from './support.mjs';
import {startMockModel} from './mock_model.mjs';

const P = 'window.__pwned=1';
const XSS_FILE = `<h1>page</h1><img src=x onerror="${P}"><script>${P}</script>`;
const XSS_ANSWER = `Read it. <img src=x onerror="${P}"> [click](javascript:${P}) <script>${P}</script> ` +
  `<a href="jav&#x09;ascript:${P}">tab</a> **safe**`;

const PLAN = {
  plan: [
    {tool: 'parse_json', args: {text: '{"a":[1,2,3]}', path: '$.a'}, save_as: 'nums', why: 'read the numbers'},
    {tool: 'math_aggregate', args: {op: 'sum', values: '$tool.nums.result'}, save_as: 'total', why: 'add them up'},
  ],
  reply: 'The total is {{tool_result.value}}.',
};

const SCENARIOS = {
  hello: () => ({text: 'Hello **world**, this is keel.', pieces: 8, piece_delay_ms: 40}),
  shell: (turn) => (turn.step === 0 ?
    {tool_calls: [{id: 'call_sh1', name: 'shell', arguments: {command: 'echo hi'}}]} :
    {text: 'The shell said hi.'}),
  plan: (turn) => (turn.step === 0 ? {text: JSON.stringify(PLAN)} : {text: 'The plan is done.'}),
  ask: (turn) => (turn.step === 0 ?
    {tool_calls: [{id: 'call_ask1', name: 'ask_user', arguments: {question: 'Which colour?', options: ['red', 'blue'], allow_free_text: false}}]} :
    {text: `You picked: ${turn.toolResults.join(' ')}`}),
  xss: (turn) => (turn.step === 0 ?
    {tool_calls: [{id: 'call_rd1', name: 'fs_read', arguments: {path: 'xss.html'}}]} :
    {text: XSS_ANSWER}),
  slow: () => ({text: 'word '.repeat(60), pieces: 60, piece_delay_ms: 100}),
  default: () => ({text: 'no scenario'}),
};

function startServe(binary, modelUrl, dirs) {
  // No --token: keel serve makes one, as for a new user, and prints the signed-in address.
  const args = ['serve', '--host', '127.0.0.1', '--port', '0',
    '--model', 'openai/mock', '--base-url', modelUrl, '--workspace', dirs.workspace, '--web-dir', WEB_DIR];
  const env = {
    ...process.env, HOME: dirs.home, XDG_CONFIG_HOME: dirs.config, XDG_DATA_HOME: dirs.data,
    XDG_STATE_HOME: dirs.state, XDG_CACHE_HOME: dirs.cache, KEEL_HOME: dirs.keelHome, OPENAI_API_KEY: 'sk-mock',
  };
  delete env.OPENAI_BASE_URL;
  delete env.KEEL_MODEL;
  const child = spawn(binary, args, {cwd: dirs.workspace, env, stdio: ['ignore', 'pipe', 'pipe']});
  let log = '';
  const address = new Promise((resolve, reject) => {
    const onData = (chunk) => {
      log += chunk.toString();
      const found = /keel serve: listening on (http:\/\/[^\s]+)/.exec(log);
      const signedIn = /keel serve: web UI \(signed in\): (http:\/\/[^\s]+)/.exec(log);
      if (found && signedIn) resolve({base: found[1].replace(/\/$/, ''), signedIn: signedIn[1]});
    };
    child.stderr.on('data', onData);
    child.stdout.on('data', (chunk) => { log += chunk.toString(); });
    child.on('exit', (code, signal) => reject(new Error(`keel serve exited (${code ?? signal}) before listening:\n${log}`)));
    child.on('error', reject);
  });
  return {child, address, log: () => log};
}

async function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  try {
    await withTimeout(exited, 5000, 'keel serve stopping on SIGTERM');
  } catch {
    child.kill('SIGKILL');
    await withTimeout(exited, 5000, 'keel serve stopping on SIGKILL').catch(() => {});
  }
}

// Polls `read()` until `accept(value)` or the timeout; returns the last value.
async function waitFor(read, accept, ms = 15000) {
  const end = Date.now() + ms;
  let value;
  for (;;) {
    value = await read();
    if (accept(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main() {
  const binary = process.argv[2];
  const t = new Checks('web e2e');
  if (!binary || !fs.existsSync(binary)) {
    console.error(`usage: e2e_test.mjs KEEL_BINARY (got ${binary})`);
    return 2;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-web-e2e-'));
  const dirs = {};
  for (const name of ['home', 'config', 'data', 'state', 'cache', 'keelHome', 'workspace']) {
    dirs[name] = path.join(tmp, name);
    fs.mkdirSync(dirs[name], {recursive: true});
  }
  fs.writeFileSync(path.join(dirs.workspace, 'xss.html'), XSS_FILE);
  const model = await startMockModel(SCENARIOS);
  let serve = null;
  let browser = null;
  const cleanup = async () => {
    if (browser) await withTimeout(browser.close(), 10000, 'closing the browser').catch(() => {});
    if (serve) await stopChild(serve.child);
    await model.close();
    fs.rmSync(tmp, {recursive: true, force: true});
  };
  process.on('exit', () => { if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL'); });
  watchdog(58000, cleanup);
  let seen = {problems: [], inert: 0, collect: async () => {}};
  try {
    serve = startServe(binary, model.baseUrl, dirs);
    const {base, signedIn} = await withTimeout(serve.address, 15000, 'keel serve printing its address');
    t.ok(signedIn.startsWith(`${base}/#token=`) && signedIn.length > base.length + 40,
      `keel serve prints a signed-in address with a long token (got ${signedIn})`);
    browser = await launchBrowser();
    const page = await browser.newPage({viewport: {width: 1400, height: 1000}});
    seen = await watchPage(page);
    const byId = (id) => page.getByTestId(id);
    const text = (locator) => locator.textContent({timeout: 2000}).catch(() => null);
    const input = byId('composer-input');
    // Sends a message and waits until its run shows up (so a later wait sees this run's end).
    const send = async (message) => {
      await waitFor(() => byId('send').isDisabled(), (v) => !v);
      const before = await byId('msg-user').count();
      await input.fill(message);
      await input.press('Enter');
      await waitFor(() => byId('msg-user').count(), (n) => n > before);
    };
    const runEnded = () => waitFor(() => byId('hud').getAttribute('data-state'), (v) => ['finished', 'failed', 'aborted'].includes(v), 20000);
    const lastAnswer = () => byId('msg-assistant').last().locator('.msg-body');

    await page.goto(signedIn);
    await waitFor(() => byId('setting-profile').locator('option').count(), (n) => n > 0);
    // Every state an assistant bubble goes through, to see the answer stream.
    await page.evaluate(() => {
      window.__bubbleStates = [];
      new MutationObserver((records) => {
        for (const r of records) {
          const node = r.type === 'attributes' ? r.target : null;
          if (node && node.dataset && node.dataset.testid === 'msg-assistant') window.__bubbleStates.push(node.dataset.state);
          for (const added of r.addedNodes || []) {
            if (added.querySelectorAll) {
              for (const b of added.querySelectorAll('[data-testid=msg-assistant]')) window.__bubbleStates.push(b.dataset.state);
            }
          }
        }
      }).observe(document.querySelector('[data-testid=chat-log]'), {subtree: true, childList: true, attributes: true, attributeFilter: ['data-state']});
    });

    // 1. A streamed answer.
    await send('[[scn:hello]] say hello');
    t.equal(await runEnded(), 'finished', 'hello: the run finishes');
    t.equal(await lastAnswer().innerHTML(), '<p>Hello <strong>world</strong>, this is keel.</p>', 'hello: the answer is rendered Markdown');
    t.ok((await page.evaluate(() => window.__bubbleStates)).includes('streaming'), 'hello: the answer streamed in');
    t.equal(await text(byId('hud-state')), 'finished', 'hello: the HUD shows finished');
    t.ok(/^round 1 \/ \d+$/.test(await text(byId('hud-round'))), `hello: the HUD shows round 1 / N (${await text(byId('hud-round'))})`);
    await screenshot(page, 'e2e-1-hello');

    // 2. A high-risk call approved in the UI (approval mode confirm).
    await byId('settings-toggle').click();
    await byId('setting-approval-mode').selectOption('confirm');
    await page.keyboard.press('Escape');
    await send('[[scn:shell]] run echo hi');
    const firstApproval = byId('approval').last();
    await firstApproval.waitFor({timeout: 15000});
    t.equal(await text(firstApproval.getByTestId('approval-args')), JSON.stringify({command: 'echo hi'}, null, 2), 'shell: the approval shows the call');
    t.equal(await text(byId('hud-state')), 'waiting for approval', 'shell: the HUD shows the wait');
    await screenshot(page, 'e2e-2-approval');
    // Reload while the run waits: the parked run is rebuilt from its events, and the approval is
    // answered from the new page.
    const sessionId = await byId('session-item').first().getAttribute('data-session-id');
    await page.goto('about:blank');
    await page.goto(`${base}/#session=${sessionId}`);
    const approval = byId('approval').last();
    await approval.waitFor({timeout: 15000});
    t.equal(await approval.getAttribute('data-state'), 'pending', 'shell: after a reload the approval is still pending');
    t.equal(await byId('approval').count(), 1, 'shell: after a reload the approval is shown once');
    t.equal(await byId('msg-user').count(), 2, 'shell: after a reload each message is shown once');
    t.ok(await byId('send').isDisabled(), 'shell: after a reload the session is known to be busy');
    await approval.getByTestId('approval-allow').click();
    t.equal(await runEnded(), 'finished', 'shell: the run finishes after the approval');
    const shellCard = byId('tool-card').filter({has: page.getByTestId('tool-name').getByText('shell', {exact: true})}).last();
    t.equal(await shellCard.getAttribute('data-status'), 'ok', 'shell: the tool card says ok');
    await shellCard.getByTestId('tool-toggle').click();
    t.ok(/(^|\n)hi(\n|$)/.test(await text(shellCard.getByTestId('tool-result'))), `shell: the tool card shows the output (${JSON.stringify(await text(shellCard.getByTestId('tool-result')))})`);
    t.equal(await approval.getAttribute('data-state'), 'allow', 'shell: the approval card settles as allowed');
    t.equal(await text(lastAnswer()), 'The shell said hi.', 'shell: the answer follows the result');
    t.ok(/^round 2 \/ \d+$/.test(await text(byId('hud-round'))), `shell: the HUD shows round 2 / N (${await text(byId('hud-round'))})`);
    await screenshot(page, 'e2e-3-tool-card');

    // 3. A plan (back to the default approval mode: confirm would ask about every step).
    await byId('settings-toggle').click();
    await byId('setting-approval-mode').selectOption('');
    await page.keyboard.press('Escape');
    await send('[[scn:plan]] add the numbers');
    t.equal(await runEnded(), 'finished', 'plan: the run finishes');
    t.equal(await byId('plan-col-done').getByTestId('plan-step').count(), 2, 'plan: both steps are in Done');
    t.equal(await byId('plan-col-planned').getByTestId('plan-step').count(), 0, 'plan: none is left in Planned');
    t.equal(await text(lastAnswer()), 'The total is 6.', 'plan: the answer is the hydrated reply');
    await screenshot(page, 'e2e-4-plan');

    // 4. ask_user: an option answers it.
    await send('[[scn:ask]] pick a colour');
    const question = byId('question').last();
    await question.waitFor({timeout: 15000});
    t.equal(await text(question.getByTestId('question-text')), 'Which colour?', 'ask: the question is shown');
    t.equal(await text(byId('hud-state')), 'waiting for your answer', 'ask: the HUD shows the wait');
    await screenshot(page, 'e2e-5-question');
    await question.getByTestId('question-option').filter({hasText: 'blue'}).click();
    t.equal(await runEnded(), 'finished', 'ask: the run finishes after the answer');
    t.ok((await text(lastAnswer())).includes('blue'), `ask: the answer uses the choice (${await text(lastAnswer())})`);
    t.equal(await question.getAttribute('data-state'), 'answered', 'ask: the question card settles');

    // 5. XSS in a tool result and in the answer.
    await send('[[scn:xss]] read xss.html');
    t.equal(await runEnded(), 'finished', 'xss: the run finishes');
    const readCard = byId('tool-card').last();
    await readCard.getByTestId('tool-toggle').click();
    t.ok((await text(readCard.getByTestId('tool-result'))).includes(`<img src=x onerror="${P}">`), 'xss: the tool result shows the HTML as text');
    t.equal(await lastAnswer().innerHTML(),
      '<p>Read it.  <a rel="noopener noreferrer" target="_blank">click</a>  <a rel="noopener noreferrer" target="_blank">tab</a> <strong>safe</strong></p>',
      'xss: the answer keeps only safe markup');
    await page.waitForTimeout(500);
    t.equal(await page.evaluate(() => document.querySelectorAll('[data-testid=chat-log] img, [data-testid=chat-log] script, [data-testid=chat-log] [onerror]').length), 0,
      'xss: no img, script or handler in the conversation');
    t.equal(await page.evaluate(() => (window.__pwned === undefined ? null : String(window.__pwned))), null, 'xss: window.__pwned is unset');
    t.equal(await inlineHandlers(page), [], 'xss: no element in the page has an on* attribute');
    await seen.collect();
    await screenshot(page, 'e2e-6-xss');

    // 6. Abort a run that is still streaming; the composer stays usable meanwhile.
    await send('[[scn:slow]] take your time');
    await waitFor(() => page.locator('[data-testid=msg-assistant][data-state=streaming]').count(), (n) => n > 0);
    t.ok(await byId('send').isDisabled() && await input.isEditable(), 'abort: while streaming only Send is disabled');
    await byId('abort').click();
    t.equal(await runEnded(), 'aborted', 'abort: the run ends as aborted');
    t.equal(await text(byId('chat-note').last()), 'The run was aborted.', 'abort: the chat says so');
    t.equal(await byId('msg-assistant').last().getAttribute('data-state'), 'interrupted', 'abort: the partial answer is marked interrupted');
    t.ok(!(await byId('send').isDisabled()), 'abort: Send is enabled again');
    await screenshot(page, 'e2e-7-abort');

    // The stored conversation comes back after a reload.
    await seen.collect();
    await page.goto('about:blank');
    await page.goto(`${base}/#session=${sessionId}`);
    t.equal(await waitFor(() => byId('msg-user').count(), (n) => n >= 6), 6, 'reload: the six messages are shown again');
    t.equal(await byId('msg-assistant').allTextContents(), ['assistantHello world, this is keel.', 'assistantThe shell said hi.',
      'assistantThe total is 6.', 'assistantYou picked: {"answer":"blue","option_index":1}', 'assistantRead it.  click  tab safe'],
    'reload: the answers are shown again');
    t.equal(await byId('tool-card').evaluateAll((cards) => cards.map((c) => `${c.querySelector('.tool-name').textContent}:${c.dataset.status}`)),
      ['shell:ok', 'parse_json:ok', 'math_aggregate:ok', 'ask_user:ok', 'fs_read:ok'], 'reload: the stored tool calls are shown with their status');
    t.equal(await text(byId('hud-state')), 'aborted', 'reload: the HUD shows the last run\'s state');
    await screenshot(page, 'e2e-8-reload');
    await seen.collect();
    console.log(`(${seen.inert} CSP report(s) from the sanitizer's inert parse of on* attributes, expected with the payloads)`);
  } catch (error) {
    t.ok(false, `unexpected error: ${error.stack || error}`);
    if (browser) {
      for (const context of browser.contexts()) {
        for (const open of context.pages()) await screenshot(open, 'e2e-failure');
      }
    }
    if (serve) console.error(`--- keel serve output:\n${serve.log().slice(-4000)}`);
  } finally {
    t.equal(seen.problems, [], 'no page error, console error, CSP violation by the live page, or dialog');
    if (serve) {
      // A clean stop on SIGTERM (a sanitized build also reports leaks and errors through this).
      await stopChild(serve.child);
      const ok = t.equal({code: serve.child.exitCode, signal: serve.child.signalCode}, {code: 0, signal: null},
        'keel serve stops cleanly on SIGTERM');
      if (!ok) console.error(`--- keel serve output:\n${serve.log().slice(-6000)}`);
    }
    await cleanup();
  }
  return t.finish();
}

process.exit(await main());
