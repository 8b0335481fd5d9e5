// The web UI against an in-memory fake of keel serve's API (fake_api.mjs): what the real server
// cannot be made to do on cue (a dropped event stream) and the UI's own behaviour - token from the
// URL fragment, keyboard (Enter, Shift+Enter, Tab, Escape), the composer while a run is busy,
// steer and abort, approvals, questions, the plan board, the context gauge's thresholds, fork and
// delete, the operator console (skill proposals decided once, the autopilot's health, polling only
// while open) - all with the page's real Content-Security-Policy (a violation fails the test).
//
// Usage: node test/web/components_test.mjs   (see run.sh)
import {Checks, inlineHandlers, launchBrowser, screenshot, startStaticServer, watchPage, watchdog, withTimeout} from './support.mjs';
import {createFakeApi} from './fake_api.mjs';

const TOKEN = 'fake-token-123';

// Polls `read()` until `accept(value)` or the timeout; returns the last value.
async function waitFor(read, accept, ms = 8000) {
  const end = Date.now() + ms;
  let value;
  for (;;) {
    value = await read();
    if (accept(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const XSS = '<img src=x onerror=alert(1)>';

// GET /api/autopilot of a running autopilot held back by its budget guard, with a broken source,
// a stalled observation and markup in server text. Listed out of order: the console sorts.
const AUTOPILOT = {
  enabled: true,
  status: {
    running: true, updated_ms: 1700000000000, cycles: 12, last_cycle_ms: 1700000000000, last_cycle_duration_ms: 4,
    observations_seen: 5, deduplicated: 2, processed: 3, failed: 1, proposals: 2,
    guard: 'hourly token cap 20000 reached (20510 used in the last hour)',
    sources: [
      {name: 'inbox', kind: 'files', ok: true, error: '', last_poll_ms: 1700000000000},
      {name: 'news', kind: 'http', ok: false, error: `feed answered 503 ${XSS}`, last_poll_ms: 1700000000000},
    ],
  },
  counts: {pending: 1, processing: 0, done: 3, dismissed: 0, stalled: 1},
  observations: [
    {id: 7, source: 'inbox', kind: 'file', subject: 'inbox/report.txt', state: 'stalled', failures: 3,
      last_error: 'skill triage failed: no such column', result: '', created_ms: 1700000000100, updated_ms: 1700000000300},
    {id: 9, source: 'inbox', kind: 'file', subject: `inbox/${XSS}.txt`, state: 'pending', failures: 1,
      last_error: `skill triage failed: ${XSS}`, result: '', created_ms: 1700000000900, updated_ms: 1700000000900},
    {id: 8, source: 'inbox', kind: 'file', subject: 'inbox/notes.md', state: 'done', failures: 0,
      last_error: '', result: 'triaged: low priority', created_ms: 1700000000500, updated_ms: 1700000000600},
  ],
};

// The operator console: opened from the keyboard, proposals approved and rejected once each, a
// lost race (409), the autopilot's health, server text as text, a failed load, the disabled hint,
// and polling that runs while the panel is open and stops when it closes.
async function checkOperatorConsole(t, page, api) {
  const byId = (id) => page.getByTestId(id);
  const text = (locator) => locator.textContent({timeout: 2000}).catch(() => null);
  const count = (request) => api.requests.filter((r) => r === request).length;
  const card = (id) => page.locator(`[data-testid=proposal][data-proposal-id="${id}"]`);
  const outcome = (id) => page.locator(`[data-testid=proposal-outcome][data-proposal-id="${id}"]`);
  const posts = (id) => count(`POST /api/skills/proposals/${id}`);
  const writeArgs = {path: 'out/report.txt', content: `# Triage\n${'lorem ipsum '.repeat(20)}`};
  const write = api.addProposal({skill: 'triage', tool: 'fs_write', arguments: writeArgs, summary: 'write the triage report'});
  const drop = api.addProposal({skill: 'cleanup', tool: '', arguments: {older_than_days: 30}, summary: `delete old drafts ${XSS}`});
  api.setAutopilot(AUTOPILOT);
  api.setProposalDelay(300);

  // Opens from the keyboard; a named region.
  const toggle = byId('operator-toggle');
  t.equal(await toggle.getAttribute('aria-expanded'), 'false', 'the operator console starts closed');
  await toggle.focus();
  await page.keyboard.press('Enter');
  t.equal(await toggle.getAttribute('aria-expanded'), 'true', 'Enter on the Operator button opens the console');
  t.equal(await page.getByRole('region', {name: 'Operator console'}).count(), 1, 'the console is a region named "Operator console"');
  t.ok(await byId('operator-panel').isVisible(), 'the operator panel is shown');

  // Pending proposals: skill, tool, summary, arguments (long ones cut, whole in the title).
  t.equal(await waitFor(() => byId('proposal').count(), (n) => n === 2), 2, 'both pending proposals are listed');
  const first = card(write.id);
  t.equal(await text(first.getByTestId('proposal-skill')), 'triage', 'a proposal shows its skill');
  t.equal(await text(first.getByTestId('proposal-tool')), 'tool: fs_write', 'a proposal shows its tool');
  t.equal(await text(first.getByTestId('proposal-summary')), 'write the triage report', 'a proposal shows its summary');
  const argsSummary = first.getByTestId('proposal-args-summary');
  const shownArgs = await text(argsSummary);
  t.ok(shownArgs && shownArgs.endsWith('…') && shownArgs.length === 121 && JSON.stringify(writeArgs).startsWith(shownArgs.slice(0, -1)),
    `long arguments are cut to 120 characters of compact JSON (${shownArgs && shownArgs.length})`);
  t.equal(await argsSummary.getAttribute('title'), JSON.stringify(writeArgs), 'the whole arguments are in the title');
  await argsSummary.click();
  t.equal(await text(first.getByTestId('proposal-args-full')), JSON.stringify(writeArgs, null, 2), 'expanded, the arguments are shown whole');
  t.equal(await text(card(drop.id).getByTestId('proposal-args')), '{"older_than_days":30}', 'short arguments are shown whole');
  t.equal(await text(card(drop.id).getByTestId('proposal-tool')), 'no tool', 'a proposal without a tool says so');
  t.equal(await text(card(drop.id).getByTestId('proposal-summary')), `delete old drafts ${XSS}`, 'a summary with markup is text');
  await screenshot(page, 'components-operator-proposals');

  // Approve, clicked twice at once: one POST, one execution, the outcome, and the card leaves.
  const whileSending = await page.evaluate((id) => {
    const node = document.querySelector(`[data-testid=proposal][data-proposal-id="${id}"]`);
    const approve = node.querySelector('[data-testid=proposal-approve]');
    approve.click();
    approve.click();
    return [approve.disabled, node.querySelector('[data-testid=proposal-reject]').disabled];
  }, write.id);
  t.equal(whileSending, [true, true], 'Approve and Reject are disabled while the decision is in flight');
  await outcome(write.id).waitFor({timeout: 5000}).catch(() => {});
  t.equal(await outcome(write.id).getAttribute('data-status', {timeout: 2000}).catch(() => null), 'executed', 'the approved proposal shows as executed');
  t.equal(await text(outcome(write.id).getByTestId('proposal-outcome-result')), 'fs_write done: wrote 1 file', 'the outcome shows the result');
  t.equal(await card(write.id).count(), 0, 'the approved proposal leaves the pending list');
  t.equal(posts(write.id), 1, 'a double click sends one POST');
  t.equal(api.executions.filter((id) => id === write.id).length, 1, 'the approved proposal was carried out once');

  // Reject (a real double click): one POST, nothing carried out, the list is empty.
  await card(drop.id).getByTestId('proposal-reject').dblclick();
  await outcome(drop.id).waitFor({timeout: 5000}).catch(() => {});
  t.equal(await text(outcome(drop.id).getByTestId('proposal-outcome-status')), 'rejected', 'the rejected proposal shows as rejected');
  t.equal(posts(drop.id), 1, 'a double click on Reject sends one POST');
  t.equal(api.proposals.get(drop.id).status, 'rejected', 'the server recorded the rejection');
  t.ok(!api.executions.includes(drop.id), 'a rejected proposal is not carried out');
  t.equal(await byId('proposal').count(), 0, 'no proposal is left pending');
  t.ok(await byId('proposals-empty').isVisible(), 'the empty state is shown');
  t.equal(await text(byId('proposals-empty')), 'No proposals waiting.', 'the empty state reads "No proposals waiting."');
  t.equal(await text(byId('proposal-count')), '0', 'the proposal count is 0');

  // A proposal that arrives while the console is open shows up by itself (polling); another client
  // decides it first, so Approve gets 409: the message shows and the list is refreshed.
  const skillsBefore = count('GET /api/skills');
  const late = api.addProposal({skill: 'triage', tool: 'fs_write', arguments: {path: 'b.txt'}, summary: 'a later proposal'});
  t.equal(await waitFor(() => card(late.id).count(), (n) => n === 1, 5000), 1, 'a new proposal appears within a poll');
  t.ok(count('GET /api/skills') > skillsBefore, 'the open console polls GET /api/skills');
  api.decideFirstElsewhere(late.id);
  const skillsAtConflict = count('GET /api/skills');
  await card(late.id).getByTestId('proposal-approve').click();
  await outcome(late.id).waitFor({timeout: 5000}).catch(() => {});
  t.equal(await outcome(late.id).getAttribute('data-status', {timeout: 2000}).catch(() => null), 'already_decided', 'a 409 is shown as already decided');
  t.equal(await text(outcome(late.id).getByTestId('proposal-outcome-result')),
    `skill proposal ${late.id} was already decided (rejected)`, 'the server\'s 409 message is shown');
  t.equal(await card(late.id).count(), 0, 'the proposal decided elsewhere leaves the list');
  // Well before the next poll (3 s after the one that listed it).
  t.ok(await waitFor(() => count('GET /api/skills') > skillsAtConflict, (v) => v, 1000), 'a 409 refreshes the list at once');
  t.ok(!api.executions.includes(late.id), 'the proposal decided elsewhere is not carried out here');

  // Autopilot: state, counters, the guard, sources, counts by state, observations newest first.
  const state = byId('autopilot-state');
  t.equal(await state.getAttribute('data-running'), 'true', 'the autopilot shows as running');
  const stateText = await text(state);
  t.ok(stateText && stateText.includes('running') && stateText.includes('12 cycles') && stateText.includes('last cycle 4 ms'),
    `the state line has cycles and the last cycle's duration (${stateText})`);
  const counters = await page.evaluate(() => Object.fromEntries(Array.from(
    document.querySelectorAll('[data-testid=autopilot-counter]'), (n) => [n.dataset.name, n.querySelector('dd').textContent])));
  t.equal(counters, {observations_seen: '5', deduplicated: '2', processed: '3', failed: '1', proposals: '2'}, 'the counters are shown');
  const guard = byId('autopilot-guard');
  t.equal(await text(guard), 'Budget guard: hourly token cap 20000 reached (20510 used in the last hour)', 'the guard line is shown');
  t.equal(await guard.evaluate((n) => getComputedStyle(n).borderTopColor), 'rgb(161, 92, 0)', 'the guard line is highlighted');
  const sources = await page.evaluate(() => Array.from(document.querySelectorAll('[data-testid=autopilot-source]'),
    (n) => ({ok: n.dataset.ok, text: n.textContent})));
  t.equal(sources.map((s) => s.ok), ['true', 'false'], 'each source shows whether it is ok');
  t.ok(sources[0] && sources[0].text.startsWith('inboxfilesok'), `a healthy source says ok (${sources[0] && sources[0].text})`);
  const sourceError = byId('autopilot-source-error');
  t.equal(await text(sourceError), `feed answered 503 ${XSS}`, 'a source error is shown as text');
  t.equal(await sourceError.evaluate((n) => getComputedStyle(n).color), 'rgb(179, 38, 30)', 'a source error is red');
  const counts = await page.evaluate(() => Array.from(document.querySelectorAll('[data-testid=autopilot-count]'),
    (n) => `${n.dataset.state}:${n.textContent}`));
  t.equal(counts, ['pending:pending 1', 'processing:processing 0', 'done:done 3', 'dismissed:dismissed 0', 'stalled:stalled 1'],
    'the observations are counted by state');
  const observations = await page.evaluate(() => Array.from(document.querySelectorAll('[data-testid=autopilot-observation]'),
    (n) => ({id: n.dataset.observationId, state: n.querySelector('[data-testid=observation-state]').textContent})));
  t.equal(observations, [{id: '9', state: 'pending'}, {id: '8', state: 'done'}, {id: '7', state: 'stalled'}],
    'observations are listed newest first with their state');
  const stalled = page.locator('[data-testid=autopilot-observation][data-observation-id="7"]');
  t.equal(await stalled.evaluate((n) => getComputedStyle(n).borderLeftColor), 'rgb(179, 38, 30)', 'a stalled observation is highlighted');
  t.equal(await text(stalled.getByTestId('observation-error')), 'skill triage failed: no such column', 'a last_error is shown');

  // Markup in server text stays text: no element, no handler, nothing ran.
  const hostile = page.locator('[data-testid=autopilot-observation][data-observation-id="9"]');
  t.equal(await text(hostile.getByTestId('observation-subject')), `inbox/${XSS}.txt`, 'a subject with markup is text');
  t.equal(await text(hostile.getByTestId('observation-error')), `skill triage failed: ${XSS}`, 'a last_error with markup is text');
  await page.waitForTimeout(300);
  t.equal(await page.locator('#operator-panel img, #operator-panel script').count(), 0, 'no element came from server text in the console');
  t.equal(await inlineHandlers(page), [], 'no on* attribute anywhere in the page');
  await screenshot(page, 'components-operator');

  // A failed load says so in the panel and keeps what was shown; the next good one clears it.
  api.setAutopilot('<html>not json</html>');
  await byId('operator-refresh').click();
  const errorLine = byId('operator-error');
  t.equal(await waitFor(() => errorLine.isVisible(), (v) => v, 3000), true, 'a failed load shows the error line');
  t.ok((await text(errorLine) || '').startsWith('Could not load the autopilot status: GET /api/autopilot: the answer is not JSON'),
    `the error line says what failed (${await text(errorLine)})`);
  t.ok(await byId('autopilot-guard').isVisible(), 'the last autopilot status stays shown after a failed load');

  // No autopilot configured: the hint says how to enable one.
  api.setAutopilot({enabled: false});
  await byId('operator-refresh').click();
  const hint = await waitFor(() => text(byId('autopilot-disabled')), (v) => v !== null, 3000);
  t.ok(hint && hint.includes('autopilot:') && hint.includes('keel.yaml') && hint.includes('README'),
    `{"enabled": false} shows how to enable the autopilot (${hint})`);
  t.ok(!(await errorLine.isVisible()), 'a good load hides the error line');

  // Escape closes the console (focus back on the button) and polling stops.
  await page.keyboard.press('Escape');
  t.ok(!(await byId('operator-panel').isVisible()), 'Escape closes the operator console');
  t.equal(await toggle.getAttribute('aria-expanded'), 'false', 'the Operator button is collapsed again');
  t.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'operator-toggle', 'focus returns to the Operator button');
  await page.waitForTimeout(200);
  const closedAt = [count('GET /api/skills'), count('GET /api/autopilot')];
  await page.waitForTimeout(3600);
  t.equal([count('GET /api/skills'), count('GET /api/autopilot')], closedAt, 'a closed console does not poll');
  await toggle.click();
  t.ok(await waitFor(() => count('GET /api/autopilot') > closedAt[1], (v) => v, 3000), 'opening the console loads at once');
  await byId('operator-close').click();
  t.ok(!(await byId('operator-panel').isVisible()), 'Close closes the operator console');
  api.setProposalDelay(0);
}

async function main() {
  const t = new Checks('web components');
  const api = createFakeApi({token: TOKEN});
  const server = await startStaticServer({handler: api.handle});
  const browser = await launchBrowser();
  watchdog(55000, async () => { await browser.close(); await server.close(); });
  let seen = {problems: [], collect: async () => {}};
  try {
    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    seen = await watchPage(page);
    const byId = (id) => page.getByTestId(id);
    const text = (locator) => locator.textContent({timeout: 2000}).catch(() => null);

    await page.goto(`${server.url}/#token=${TOKEN}`);
    t.equal(await page.evaluate(() => window.location.hash), '', 'the token is removed from the address bar');
    t.equal(await page.evaluate(() => sessionStorage.getItem('keel.token')), TOKEN, 'the token is kept in sessionStorage');
    const profiles = await waitFor(() => byId('setting-profile').locator('option').allTextContents(), (v) => v.length === 2);
    t.equal(profiles, ['default — openai/mock', 'careful — openai/mock'], 'profiles come from GET /api/models');

    // The SSE parser, fed whole and one character at a time.
    const parsed = await page.evaluate(async () => {
      const {SseParser} = await import('/ui/sse.js');
      const feed = (chunks) => {
        const events = [];
        const retries = [];
        const parser = new SseParser((e) => events.push(e), (ms) => retries.push(ms));
        for (const c of chunks) parser.push(c);
        return {events, retries, lastEventId: parser.lastEventId};
      };
      const text = 'id: 5\r\nevent: tool_call\r\ndata: a\r\ndata: b\r\n\r\n: ping\n\ndata:no-space\n\nretry: 3000\ndata: c\r\rid\nevent\ndata\n\n';
      return {whole: feed([text]), bytes: feed(text.split(''))};
    });
    const expectedEvents = {
      events: [{id: '5', event: 'tool_call', data: 'a\nb'}, {id: '5', event: 'message', data: 'no-space'},
        {id: '5', event: 'message', data: 'c'}, {id: '', event: 'message', data: ''}],
      retries: [3000], lastEventId: '',
    };
    t.equal(parsed.whole, expectedEvents, 'the SSE parser reads ids, types, multi-line data, comments, retry, CR and CRLF');
    t.equal(parsed.bytes, expectedEvents, 'the SSE parser gives the same events fed one character at a time');

    // Enter sends; the session is created on the first message.
    const input = byId('composer-input');
    await input.fill('hello there');
    await input.press('Enter');
    const answer = byId('msg-assistant').last();
    t.equal(await waitFor(() => answer.innerHTML(), (v) => v.includes('</strong>')).then(() => answer.locator('.msg-body').innerHTML()),
      '<p>Answer to: <strong>hello there</strong></p>', 'the streamed answer settles as rendered Markdown');
    t.equal(await waitFor(() => text(byId('hud-state')), (v) => v === 'finished'), 'finished', 'the HUD shows the finished state');
    t.equal(await text(byId('hud-round')), 'round 1 / 8', 'the HUD shows round k / N with N from the profile');
    t.equal(await byId('session-item').count(), 1, 'the new session is listed');
    t.equal(await byId('chat-log').getAttribute('aria-live'), 'polite', 'the conversation is an aria-live region');

    // Shift+Enter adds a line and sends nothing; Tab goes from the message box to Send.
    const posts = () => api.requests.filter((r) => r.endsWith('/messages')).length;
    const before = posts();
    await input.fill('a');
    await input.press('Shift+Enter');
    await input.type('b');
    t.equal(await input.inputValue(), 'a\nb', 'Shift+Enter inserts a newline');
    t.equal(posts(), before, 'Shift+Enter sends nothing');
    await input.press('Tab');
    t.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'send', 'Tab moves from the message box to Send');
    await input.fill('');

    // Gauge: 2240 of 3000 tokens is 75%: warning.
    t.equal(await byId('context-gauge').getAttribute('data-level'), 'warning', 'the context gauge warns at 75%');
    t.equal(await text(byId('usage-tools')), 'tools: 1,500', 'the usage legend shows the tools category');
    t.equal(await page.evaluate(async () => {
      const {gaugeLevel} = await import('/ui/usage_chart.js');
      return [gaugeLevel(699, 1000), gaugeLevel(700, 1000), gaugeLevel(899, 1000), gaugeLevel(900, 1000), gaugeLevel(5, 0)];
    }), ['ok', 'warning', 'warning', 'danger', 'unknown'], 'gauge thresholds: warning from 70%, danger from 90%');

    // Approval: Allow posts the decision; the tool card shows the result.
    await input.fill('please approve this');
    await input.press('Enter');
    await byId('approval').last().waitFor({timeout: 5000});
    t.equal(await text(byId('hud-state')), 'waiting for approval', 'the HUD shows the wait for approval');
    await byId('approval-allow').last().click();
    const card = byId('tool-card').last();
    t.equal(await waitFor(() => card.getAttribute('data-status'), (v) => v === 'ok'), 'ok', 'the approved call ran');
    t.equal(await byId('approval').last().getAttribute('data-state'), 'allow', 'the approval card settles as allowed');
    const toggle = card.getByTestId('tool-toggle');
    t.equal(await toggle.getAttribute('aria-expanded'), 'false', 'a tool card starts collapsed');
    await toggle.focus();
    await page.keyboard.press('Enter');
    t.equal(await toggle.getAttribute('aria-expanded'), 'true', 'Enter on the toggle expands the card');
    t.equal(await text(card.getByTestId('tool-result')), 'hi\n', 'the card shows the tool output');
    t.ok(api.requests.some((r) => /^POST \/api\/approvals\/ap_/.test(r)), 'the decision went to POST /api/approvals/{id}');
    await waitFor(() => text(byId('hud-state')), (v) => v === 'finished');

    // Question: an option answers it.
    await input.fill('ask me');
    await input.press('Enter');
    await byId('question').last().waitFor({timeout: 5000});
    await byId('question-option').nth(1).click();
    t.equal(await waitFor(() => text(byId('msg-assistant').last()), (v) => v && v.includes('You chose blue.')),
      'assistantYou chose blue.', 'the answered question lets the run finish');

    // Plan board.
    await input.fill('make a plan');
    await input.press('Enter');
    await waitFor(() => byId('plan-col-failed').getByTestId('plan-step').count(), (n) => n === 1);
    t.equal(await byId('plan-col-done').getByTestId('plan-step').count(), 1, 'step 1 is in Done');
    t.equal(await byId('plan-col-failed').getByTestId('plan-step').count(), 1, 'step 2 is in Failed');
    t.equal(await byId('plan-col-planned').getByTestId('plan-step').count(), 0, 'no step is left in Planned');
    t.ok((await byId('thinking-log').textContent()).includes('plan_halted'), 'the guard is in the thinking log');
    await waitFor(() => text(byId('hud-state')), (v) => v === 'finished');
    await screenshot(page, 'components-plan');

    // Busy: only Send is disabled; the stream survives a drop without gaps or repeats; steer.
    await input.fill('go slow');
    await input.press('Enter');
    await waitFor(() => byId('steer').isVisible(), (v) => v);
    t.ok(await byId('send').isDisabled(), 'Send is disabled while a run is busy');
    t.ok(await input.isEditable(), 'the message box stays usable while a run is busy');
    t.ok(await byId('abort').isVisible(), 'Abort is offered while a run is busy');
    await page.waitForTimeout(400);
    api.dropStreams();
    await waitFor(() => byId('conn-status').getAttribute('data-state'), (v) => v === 'reconnecting', 3000);
    await waitFor(() => byId('conn-status').getAttribute('data-state'), (v) => v === 'open', 5000);
    t.ok(api.lastEventIds.length >= 1 && Number(api.lastEventIds[api.lastEventIds.length - 1]) > 0,
      `the reconnect sent Last-Event-ID (${api.lastEventIds.join(',')})`);
    await page.waitForTimeout(300);
    await input.fill('focus on the end');
    await byId('steer').click();
    await waitFor(() => byId('msg-user').last().getAttribute('data-kind'), (v) => v === 'steer');
    t.equal(await text(byId('msg-user').last().locator('.msg-body')), 'focus on the end', 'the steer text shows as a steer message');
    await waitFor(() => text(byId('hud-state')), (v) => v === 'finished');
    const slowRun = Array.from(api.runs.values()).pop();
    const streamed = await page.locator(`[data-testid=round][data-run="${slowRun.id}"][data-round="1"] .msg-body`).textContent();
    const words = streamed.trim().split(/\s+/);
    t.ok(words.length > 8 && words.every((w, i) => w === `word${i}`),
      `the text streamed across the drop has no gap or repeat: ${words.slice(0, 3).join(' ')} … ${words.slice(-2).join(' ')} (${words.length} words)`);
    t.ok(!(await byId('send').isDisabled()), 'Send is enabled again when the run ends');

    // Abort.
    await input.fill('slow again');
    await input.press('Enter');
    await waitFor(() => byId('abort').isVisible(), (v) => v);
    await byId('abort').click();
    // Every state the HUD shows until the run ends: the "failed" status that comes just before an
    // aborted run's run_failed is not one of them.
    const shown = [];
    const ended = await waitFor(async () => {
      const state = await byId('hud').getAttribute('data-state');
      if (shown[shown.length - 1] !== state) shown.push(state);
      return state;
    }, (v) => v === 'aborted' || v === 'failed');
    t.equal(ended, 'aborted', 'Abort ends the run');
    t.ok(!shown.includes('failed'), `the HUD never shows the aborted run as failed (${shown.join(' > ')})`);
    t.equal(await text(byId('chat-note').last()), 'The run was aborted.', 'the chat says the run was aborted');

    // Settings: the toggle opens the panel; Escape closes it and gives focus back.
    await byId('settings-toggle').click();
    t.equal(await byId('settings-toggle').getAttribute('aria-expanded'), 'true', 'the settings toggle is expanded');
    t.ok(await byId('settings-panel').isVisible(), 'the settings panel opens');
    await byId('setting-approval-mode').selectOption('confirm');
    await byId('setting-max-rounds').fill('5');
    await byId('setting-max-rounds').dispatchEvent('change');
    await page.keyboard.press('Escape');
    t.ok(!(await byId('settings-panel').isVisible()), 'Escape closes the settings panel');
    t.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'settings-toggle', 'focus returns to the toggle');
    await input.fill('with settings');
    await input.press('Enter');
    await waitFor(() => text(byId('hud-state')), (v) => v === 'finished');
    const lastRun = Array.from(api.runs.values()).pop();
    t.equal({mode: lastRun.payload.approval_mode, rounds: lastRun.payload.max_rounds, profile: lastRun.payload.profile},
      {mode: 'confirm', rounds: 5, profile: 'default'}, 'the settings go with the message');
    t.equal(await text(byId('hud-round')), 'round 1 / 5', 'the HUD uses the max rounds setting');

    await seen.collect();
    // Reloading the session replays it; a stream dropped after 3 events resumes from id 3.
    api.dropStreamsAfter(3);
    await page.goto('about:blank');
    await page.goto(`${server.url}/#session=${lastRun.session_id}`);
    await waitFor(() => byId('msg-user').count(), (n) => n >= 6);
    await waitFor(() => api.lastEventIds.includes('3'), (v) => v, 5000);
    await waitFor(() => byId('conn-status').getAttribute('data-state'), (v) => v === 'open', 5000);
    t.ok(api.lastEventIds.includes('3'), `a replay cut after 3 events resumes with Last-Event-ID: 3 (${api.lastEventIds.join(',')})`);
    t.equal(await byId('msg-user').count(), 7, 'the reloaded session shows every user message once');

    // Fork and delete (delete asks for a second click).
    await byId('session-fork').first().click();
    await waitFor(() => byId('session-item').count(), (n) => n === 2);
    t.equal(await byId('session-item').count(), 2, 'fork adds a session');
    const del = byId('session-delete').first();
    await del.click();
    t.equal(await del.textContent(), 'Confirm delete', 'the first click on Delete asks for confirmation');
    await del.click();
    await waitFor(() => byId('session-item').count(), (n) => n === 1);
    t.equal(await byId('session-item').count(), 1, 'the second click deletes the session');
    await screenshot(page, 'components-end');

    await checkOperatorConsole(t, page, api);
    await seen.collect();
  } catch (error) {
    t.ok(false, `unexpected error: ${error.stack || error}`);
  } finally {
    t.equal(seen.problems, [], 'no page error, console error, CSP violation or dialog');
    await withTimeout(browser.close(), 10000, 'closing the browser').catch(() => {});
    await server.close();
  }
  return t.finish();
}

process.exit(await main());
