// The web UI against an in-memory fake of keel serve's API (fake_api.mjs): what the real server
// cannot be made to do on cue (a dropped event stream) and the UI's own behaviour - token from the
// URL fragment, keyboard (Enter, Shift+Enter, Tab, Escape), the composer while a run is busy,
// steer and abort, approvals, questions, the plan board, the context gauge's thresholds, fork and
// delete - all with the page's real Content-Security-Policy (a violation fails the test).
//
// Usage: node test/web/components_test.mjs   (see run.sh)
import {Checks, launchBrowser, screenshot, startStaticServer, watchPage, watchdog, withTimeout} from './support.mjs';
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
    t.equal(await waitFor(() => text(byId('hud-state')), (v) => v === 'aborted'), 'aborted', 'Abort ends the run');
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
