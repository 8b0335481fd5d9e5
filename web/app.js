// keel's web UI: wires the views to the API and to the selected session's event stream.
//
// Selecting a session loads its stored conversation (GET /api/sessions/{id}) and opens its event
// stream from the start (?after=0; later reconnects send Last-Event-ID). Runs that had ended are
// shown from the stored messages; the active run and every later one are built from their events.
// A message goes to POST /api/sessions/{id}/messages with the settings; while a run is active the
// composer offers Steer and Abort instead of Send. The header's Operator button opens the operator
// console (operator_console.js): skill proposals to decide and the autopilot's health.
import {captureTokenFromUrl, authHeaders} from './auth.js';
import {createApi} from './api.js';
import {openEventStream} from './sse.js';
import {makeCollapsible} from './dom.js';
import {Banner} from './banner.js';
import {ChatView} from './chat_view.js';
import {ToolCards} from './tool_cards.js';
import {PlanBoard} from './plan_board.js';
import {ThinkingLog} from './thinking_log.js';
import {ProgressHud} from './hud.js';
import {UsageChart} from './usage_chart.js';
import {Approvals} from './approvals.js';
import {Questions} from './questions.js';
import {Settings} from './settings.js';
import {SessionList} from './sessions.js';
import {OperatorConsole} from './operator_console.js';
import {Composer} from './composer.js';
import {SessionEvents} from './session_events.js';
import {showTranscript} from './transcript.js';

const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

class App {
  constructor() {
    captureTokenFromUrl();
    this.api = createApi();
    this.banner = new Banner(byTestId('banner'));
    const onError = (message) => this.banner.show(message);
    this.views = {
      chat: new ChatView(byTestId('chat-log')),
      tools: new ToolCards(),
      plan: new PlanBoard(byTestId('plan-board')),
      log: new ThinkingLog(byTestId('thinking-log')),
      hud: new ProgressHud(byTestId('hud')),
      usage: new UsageChart(byTestId('usage-panel')),
      approvals: new Approvals(this.api, onError),
      questions: new Questions(this.api, onError),
    };
    this.settings = new Settings(this.api, onError);
    this.operator = new OperatorConsole(
      {panel: document.getElementById('operator-panel'), toggle: byTestId('operator-toggle')}, this.api);
    this.sessions = new SessionList(byTestId('session-list'), this.api, {
      onSelect: (id) => this.select(id),
      onDeleted: (id) => { if (id === this.sessionId) this.unselect(); },
      onError,
    });
    this.composer = new Composer(byTestId('composer'), {
      onSend: (text) => this.send(text),
      onSteer: (text) => this.steer(text),
      onAbort: () => this.abort(),
    });
    this.runRounds = new Map();  // run id -> max rounds it was started with
    // Runs whose end was seen: a quick run can end before its POST answers, and must not then
    // be taken for the active one.
    this.endedRuns = new Set();
    this.router = new SessionEvents(this.views, {
      onBusy: (runId) => this.setActiveRun(runId),
      onRunEnded: (runId) => this.runEnded(runId),
      maxRoundsFor: (runId) => this.runRounds.get(runId) || this.settings.effectiveMaxRounds(),
    });
    this.sessionId = null;
    this.activeRunId = null;
    this.stream = null;
    this.lastSeq = -1;
    this.selecting = 0;
    this.conn = byTestId('conn-status');
    for (const button of document.querySelectorAll('[data-collapsible]')) {
      const region = document.getElementById(button.getAttribute('aria-controls'));
      if (region) makeCollapsible(button, region, `keel.panel.${button.getAttribute('aria-controls')}`);
    }
    byTestId('new-session').addEventListener('click', () => this.newSession());
  }

  async start() {
    this.setConnection('idle', 'no session selected');
    await Promise.all([this.settings.loadModels(), this.sessions.refresh()]);
    window.addEventListener('hashchange', () => this.selectFromUrl());
    await this.selectFromUrl();
    this.composer.focus();
  }

  // `#session=ID` in the address opens that session (links to a conversation).
  async selectFromUrl() {
    const wanted = new URLSearchParams(window.location.hash.replace(/^#/, '')).get('session');
    if (wanted && wanted !== this.sessionId) await this.select(wanted);
  }

  setConnection(state, detail) {
    this.conn.dataset.state = state;
    this.conn.textContent = detail ? `${state}: ${detail}` : state;
  }

  setActiveRun(runId) {
    if (runId && this.endedRuns.has(runId)) return;
    this.activeRunId = runId;
    this.composer.setBusy(Boolean(runId));
  }

  runEnded(runId) {
    this.endedRuns.add(runId);
    if (runId === this.activeRunId) this.setActiveRun(null);
    this.sessions.refresh();
  }

  clearViews() {
    this.views.chat.clear();
    this.views.tools.clear();
    this.views.plan.clear();
    this.views.log.clear();
    this.views.hud.reset();
    this.views.usage.clear();
    this.views.approvals.clear();
    this.views.questions.clear();
  }

  closeStream() {
    if (this.stream) this.stream.close();
    this.stream = null;
  }

  unselect() {
    this.closeStream();
    this.sessionId = null;
    this.clearViews();
    this.setActiveRun(null);
    this.sessions.setActive(null);
    this.setConnection('idle', 'no session selected');
  }

  async select(id) {
    const ticket = ++this.selecting;
    this.closeStream();
    this.clearViews();
    this.sessionId = id;
    this.sessions.setActive(id);
    this.lastSeq = -1;
    let session;
    try {
      session = await this.api.getSession(id);
    } catch (error) {
      if (ticket !== this.selecting) return;
      this.banner.show(`Could not open session ${id}: ${error.message}`);
      this.unselect();
      return;
    }
    if (ticket !== this.selecting) return;
    const historical = showTranscript(this.views, session, (run) => this.runRounds.get(run.id) || this.settings.effectiveMaxRounds());
    this.router.reset(historical);
    this.setActiveRun(session.active_run_id || null);
    this.stream = openEventStream(this.api.sessionEventsUrl(id), {
      headers: authHeaders,
      after: 0,
      onEvent: (event) => this.onStreamEvent(event),
      onStatus: (state, detail) => this.setConnection(state, detail),
    });
  }

  onStreamEvent(event) {
    const seq = Number(event.id);
    if (event.id !== '' && Number.isFinite(seq)) {
      if (seq <= this.lastSeq) return;  // already shown (a reconnect may overlap)
      this.lastSeq = seq;
    }
    let data;
    try {
      data = JSON.parse(event.data);
    } catch {
      return;  // not an event object (docs/server.md sends JSON only)
    }
    if (event.event === 'error' && data && data.message) {
      // The server could not read the event log: say so (the stream ends and is retried).
      this.banner.show(`The event stream failed: ${data.message}`);
      return;
    }
    if (data && typeof data === 'object') this.router.handle(data);
  }

  async newSession() {
    try {
      const session = await this.sessions.create({});
      await this.select(session.id);
      this.composer.focus();
    } catch (error) {
      this.banner.show(`Could not create a session: ${error.message}`);
    }
  }

  async send(text) {
    try {
      if (!this.sessionId) {
        const session = await this.sessions.create({title: text.slice(0, 60)});
        await this.select(session.id);
      }
      const payload = {content: text, ...this.settings.payload()};
      const accepted = await this.api.postMessage(this.sessionId, payload);
      if (accepted && accepted.run_id) {
        this.runRounds.set(accepted.run_id, this.settings.effectiveMaxRounds());
        if (!this.activeRunId && !this.endedRuns.has(accepted.run_id)) this.setActiveRun(accepted.run_id);
      }
      this.banner.hide();
      return true;
    } catch (error) {
      if (error.code === 'session_busy') {
        this.banner.show(`This session already has a run: wait for it, steer it or abort it. (${error.message})`);
      } else {
        this.banner.show(`Message not sent: ${error.message}`);
      }
      return false;
    }
  }

  async steer(text) {
    if (!this.activeRunId) return false;
    try {
      await this.api.steerRun(this.activeRunId, text);
      return true;
    } catch (error) {
      this.banner.show(`Steer not sent: ${error.message}`);
      if (error.code === 'run_not_active') this.setActiveRun(null);
      return false;
    }
  }

  async abort() {
    if (!this.activeRunId) return;
    try {
      await this.api.abortRun(this.activeRunId);
    } catch (error) {
      this.banner.show(`Abort failed: ${error.message}`);
      if (error.code === 'run_not_active') this.setActiveRun(null);
    }
  }
}

function main() {
  const app = new App();
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || e.defaultPrevented) return;  // a panel's own Escape already closed it
    if (app.settings.isOpen()) app.settings.setOpen(false);
    else if (app.operator.isOpen()) app.operator.setOpen(false);
  });
  app.start();
}

main();
