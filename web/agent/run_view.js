// One run in the agent page's log: the task, each round's tool cards, approval and ask_user
// prompts, streamed text, guards and notes, the plan board and the run's end, drawn from keel's
// events. `host` is the page: {page, ui, $, scrollDown, setStatus, showBanner, showUsage,
// showSession}.
import {clear, el, formatDuration} from '../dom.js';
import {renderMarkdown} from '../markdown.js';
import {ToolCards} from '../tool_cards.js';
import {Approvals} from '../approvals.js';
import {Questions} from '../questions.js';
import {PlanBoard} from '../plan_board.js';

let host = null;

// Gives the views the page they draw into; called once before the first run.
export function attachRunViews(page) {
  host = page;
}

export function resetPlanBoard() {
  planBoard?.clear();
}

// The tool cards of the log on screen (runs and reopened sessions share them).
export const toolCards = new ToolCards();
let planBoard = null;

export function note(parent, kind, text, testid) {
  const node = el('p', {class: `chat-note ${kind}`, dataset: {testid: testid || 'note', kind}}, text);
  parent.append(node);
  host.scrollDown();
  return node;
}

export function userMessage(text) {
  return el('div', {class: 'msg user', dataset: {testid: 'user-msg'}},
    el('div', {class: 'msg-label'}, 'you'), el('div', {class: 'msg-body plain'}, text));
}

export function assistantMessage(label, state) {
  const body = el('div', {class: 'msg-body plain'});
  const node = el('div', {class: 'msg assistant', dataset: {testid: 'assistant-msg', state}},
    el('div', {class: 'msg-label'}, label), body);
  return {node, body, text: ''};
}

export function showMarkdown(message, text) {
  message.text = text;
  clear(message.body);
  message.body.className = 'msg-body markdown';
  message.body.append(renderMarkdown(text));
}

export class RunView {
  constructor(turn) {
    this.turn = turn;
    this.rounds = new Map();  // round -> {box, slot, message}
    this.round = 0;
    this.requested = new Map();  // call id -> call, for approvals
    this.waiting = new Map();  // call id -> resolve(decision)
    this.answers = new Map();  // question id -> resolve(answer)
    this.questionCount = 0;
    this.usage = {prompt_tokens: 0, completion_tokens: 0};
    this.lastMessage = null;
    this.approvals = new Approvals({
      decideApproval: async (callId, decision) => {
        const resolve = this.waiting.get(callId);
        if (!resolve) throw Object.assign(new Error('this call is no longer waiting'), {code: 'not_found'});
        this.waiting.delete(callId);
        resolve(decision === 'always' ? 'always' : decision);
      },
    }, host.showBanner);
    this.questions = new Questions({
      answerQuestion: async (id, payload) => {
        const resolve = this.answers.get(id);
        if (!resolve) throw Object.assign(new Error('the question is no longer open'), {code: 'not_found'});
        this.answers.delete(id);
        resolve(payload.answer);
        return {answer: payload.answer};
      },
    }, host.showBanner);
  }

  box(round = this.round || 0) {
    let entry = this.rounds.get(round);
    if (!entry) {
      const slot = el('div', {class: 'round-tools', dataset: {testid: 'round-tools'}});
      const box = el('div', {class: 'round', dataset: {testid: 'round', round}}, slot);
      this.turn.append(box);
      entry = {box, slot, message: null};
      this.rounds.set(round, entry);
    }
    return entry;
  }

  message(round = this.round) {
    const entry = this.box(round);
    if (!entry.message) {
      entry.message = assistantMessage(`assistant · round ${round}`, 'streaming');
      entry.box.insertBefore(entry.message.node, entry.slot);
      this.lastMessage = entry.message;
    }
    return entry.message;
  }

  // createAgent's approve(): settles when Allow / Deny / Always allow is pressed.
  approve(request) {
    return new Promise((resolve) => {
      this.waiting.set(request.call.id, resolve);
    });
  }

  // ask_user's page side: a question card in the current round.
  ask(question, signal) {
    this.questionCount += 1;
    const id = `q${this.questionCount}`;
    const card = this.questions.ask(this.box().slot, {question_id: id, question, allow_free_text: true});
    card.querySelector('input')?.focus();
    host.scrollDown();
    return new Promise((resolve, reject) => {
      this.answers.set(id, resolve);
      signal?.addEventListener('abort', () => {
        if (!this.answers.has(id)) return;
        this.answers.delete(id);
        this.questions.settle(id, '(not answered: the run stopped)');
        reject(new Error('the question was not answered: the run stopped'));
      }, {once: true});
    });
  }

  // A run stopped from the page: every open prompt gives up.
  cancelPrompts() {
    for (const [callId, resolve] of this.waiting) {
      this.approvals.settle(callId, 'deny', 'the run was stopped');
      resolve({verdict: 'deny', reason: 'the run was stopped in the page'});
    }
    this.waiting.clear();
  }

  addUsage(u) {
    if (!u) return;
    this.usage.prompt_tokens += u.prompt_tokens || 0;
    this.usage.completion_tokens += u.completion_tokens || 0;
    host.page.usage.prompt_tokens += u.prompt_tokens || 0;
    host.page.usage.completion_tokens += u.completion_tokens || 0;
    host.showUsage(this.usage);
  }

  handle(ev) {
    if (ev.round) this.round = ev.round;
    switch (ev.type) {
      case 'run_started':
        host.setStatus('running', 'running');
        if (ev.session_id) host.showSession(ev.session_id);
        break;
      case 'status':
        // The run's end is shown by run_finished / run_failed, which say how it ended (the last
        // status of an aborted run is "failed").
        if (ev.status === 'waiting_approval') host.setStatus(`round ${this.round}: waiting for your approval`, 'waiting');
        else if (ev.status !== 'finished' && ev.status !== 'failed') host.setStatus(`round ${this.round || 1}: ${ev.status.replace(/_/g, ' ')}`, 'running');
        host.ui.rounds.textContent = String(this.round);
        break;
      case 'model_delta': {
        const m = this.message(ev.round);
        m.text += ev.text;
        m.body.textContent = m.text;
        host.scrollDown();
        break;
      }
      case 'model_reply': {
        this.addUsage(ev.usage);
        const entry = this.box(ev.round);
        if (ev.text) {
          const m = this.message(ev.round);
          showMarkdown(m, ev.text);
          m.node.dataset.state = ev.tool_calls?.length ? 'intermediate' : 'reply';
        } else if (entry.message && !entry.message.text) {
          entry.message.node.remove();
          entry.message = null;
        }
        if (!ev.text && !ev.tool_calls?.length) note(entry.slot, 'warning', `round ${ev.round}: the model replied with nothing`, 'empty-reply');
        break;
      }
      case 'tool_call':
        toolCards.start(this.box(ev.round).slot, {id: ev.id, name: ev.name, arguments: ev.arguments, round: ev.round});
        host.scrollDown();
        break;
      case 'tool_result':
        toolCards.finish(ev);
        host.scrollDown();
        break;
      case 'approval_requested': {
        this.requested.set(ev.call.id, ev.call);
        let args = ev.call.arguments;
        try {
          args = JSON.parse(args);
        } catch {
          // shown as written
        }
        const card = this.approvals.request(this.box().slot, {...ev, call: {...ev.call, arguments: args}, approval_id: ev.call.id});
        card.querySelector('[data-testid="approval-allow"]')?.focus();
        host.scrollDown();
        break;
      }
      case 'approval_decided': {
        this.approvals.decided(ev);
        const call = this.requested.get(ev.call_id);
        if (ev.verdict === 'deny' && call && !toolCards.has(call.id)) {
          toolCards.denied(this.box().slot, {id: call.id, name: call.name, arguments: call.arguments, round: this.round}, ev.reason);
        } else if (ev.verdict === 'deny' && !call) {
          note(this.box().slot, 'warning', `a call was refused by the policy: ${ev.reason || ev.call_id}`, 'policy-deny');
        }
        break;
      }
      case 'guard_fired':
        note(this.box().slot, 'warning', `guard ${ev.kind}${ev.tool ? ` (${ev.tool})` : ''}${ev.detail ? `: ${ev.detail}` : ''}`, 'guard');
        if (ev.call_id) toolCards.annotate(ev.call_id, `guard ${ev.kind}`);
        break;
      case 'plan_step':
        host.ui.planPanel.hidden = false;
        planBoard ??= new PlanBoard(host.$('plan-board'));
        planBoard.update(ev);
        break;
      case 'model_retry':
        note(this.box().slot, 'warning', `the model call failed (${ev.error}); trying again in ${formatDuration(ev.delay_ms)}`, 'retry');
        break;
      case 'error':
        note(this.turn, 'error', `${ev.source === 'store' ? 'The session store failed' : `Error (${ev.source})`}: ${ev.error}`, 'store-error');
        break;
      case 'run_finished':
        this.finish(ev);
        break;
      case 'run_failed':
        this.fail(ev);
        break;
      default:
        break;
    }
  }

  finish(ev) {
    const answer = typeof ev.answer === 'string' ? ev.answer : '';
    let m = this.lastMessage;
    if (!m || m.text.trim() !== answer.trim()) {
      m = assistantMessage('answer', 'final');
      this.turn.append(m.node);
    }
    showMarkdown(m, answer);
    m.node.dataset.state = 'final';
    m.node.querySelector('.msg-label').textContent = 'answer';
    note(this.turn, 'ok', `Finished: ${ev.rounds} round${ev.rounds === 1 ? '' : 's'}, ${ev.tool_calls} tool call${ev.tool_calls === 1 ? '' : 's'}, ${formatDuration(ev.duration_ms)}.`, 'run-finished');
    host.setStatus('finished', 'finished');
    host.showUsage(ev.usage || this.usage);
  }

  fail(ev) {
    for (const entry of this.rounds.values()) {
      if (entry.message?.node.dataset.state === 'streaming') entry.message.node.dataset.state = 'interrupted';
    }
    for (const id of this.answers.keys()) this.questions.settle(id, '(not answered: the run ended)');
    note(this.turn, 'error', `The run failed (${ev.kind}): ${ev.error}`, 'run-failed');
    const ended = ev.kind === 'aborted' ? 'aborted' : 'failed';
    host.setStatus(ended, ended);
    host.showUsage(ev.usage || this.usage);
  }
}

