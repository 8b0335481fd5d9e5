// The conversation: user messages, the assistant's streamed text per round, and one section per
// round that also holds that round's tool cards and the requests for a person (approvals,
// questions). Assistant text is Markdown rendered through the sanitizer; user text is plain text.
//
//   const chat = new ChatView(document.querySelector('[data-testid=chat-log]'));
//   chat.addUser('list the files', 'task');
//   chat.appendDelta('r_1', 1, 'Here ');           // streaming: rendered at most every 80 ms
//   chat.settleReply('r_1', 1, 'Here they are', false);
//   chat.finalAnswer('r_1', 1, 'Here they are');
//
// The log is an aria-live region; a bubble is aria-busy while it streams so assistive technology
// reads it once it settles. Not shared between documents; one instance per log element.
import {clear, el} from './dom.js';
import {renderMarkdown} from './markdown.js';

const RENDER_INTERVAL_MS = 80;
const STICK_PX = 48;

export class ChatView {
  constructor(root) {
    this.root = root;
    this.rounds = new Map();  // `${runId}:${round}` -> {section, bubble, text, tools, prompts}
    this.pending = new Set();
    this.renderTimer = null;
    // The log follows new content while the reader is at its end; scrolling up stops that until
    // they scroll back down. Tool cards and prompts are added by other views, hence the observer.
    this.stick = true;
    this.scrollQueued = false;
    root.addEventListener('scroll', () => {
      this.stick = root.scrollHeight - root.scrollTop - root.clientHeight < STICK_PX;
    });
    new MutationObserver(() => this.scrollToEnd()).observe(root, {childList: true, subtree: true, characterData: true});
  }

  clear() {
    clear(this.root);
    this.rounds.clear();
    this.pending.clear();
    clearTimeout(this.renderTimer);
    this.renderTimer = null;
    this.stick = true;
  }

  scrollToEnd() {
    if (!this.stick || this.scrollQueued) return;
    this.scrollQueued = true;
    requestAnimationFrame(() => {
      this.scrollQueued = false;
      if (this.stick) this.root.scrollTop = this.root.scrollHeight;
    });
  }

  // Follow the end again (the person sent a message).
  follow() {
    this.stick = true;
    this.scrollToEnd();
  }

  // A user message; kind 'task' (a new run), 'steer' (guidance for a running run) or 'history'.
  addUser(text, kind = 'task') {
    const label = kind === 'steer' ? 'you (steer)' : 'you';
    const node = el('article', {class: `msg user ${kind}`, dataset: {testid: 'msg-user', kind}},
      el('header', {class: 'msg-label'}, label),
      el('div', {class: 'msg-body plain'}, String(text ?? '')));
    this.root.append(node);
    if (kind !== 'history') this.follow();
    return node;
  }

  // A line from the system (run failed, aborted, a history marker).
  addNote(text, kind = 'info') {
    const node = el('p', {class: `chat-note ${kind}`, dataset: {testid: 'chat-note', kind}}, text);
    this.root.append(node);
    return node;
  }

  // The section of a run's round, created at the end of the log the first time it is asked for.
  round(runId, round) {
    const key = `${runId}:${round}`;
    let entry = this.rounds.get(key);
    if (!entry) {
      const tools = el('div', {class: 'round-tools'});
      const prompts = el('div', {class: 'round-prompts'});
      const section = el('section', {class: 'round', dataset: {testid: 'round', run: runId, round}},
        prompts, tools);
      section.setAttribute('aria-label', `round ${round}`);
      entry = {section, bubble: null, body: null, text: '', tools, prompts};
      this.rounds.set(key, entry);
      this.root.append(section);
    }
    return entry;
  }

  // Where a round's tool cards go.
  toolsSlot(runId, round) {
    return this.round(runId, round).tools;
  }

  // Where a round's approvals and questions go.
  promptsSlot(runId, round) {
    return this.round(runId, round).prompts;
  }

  bubble(entry, state) {
    if (!entry.bubble) {
      entry.body = el('div', {class: 'msg-body markdown'});
      entry.bubble = el('article', {class: 'msg assistant', dataset: {testid: 'msg-assistant', state}},
        el('header', {class: 'msg-label'}, 'assistant'), entry.body);
      entry.section.insertBefore(entry.bubble, entry.prompts);
    }
    entry.bubble.dataset.state = state;
    entry.bubble.setAttribute('aria-busy', state === 'streaming' ? 'true' : 'false');
    return entry.bubble;
  }

  render(entry) {
    clear(entry.body);
    entry.body.append(renderMarkdown(entry.text));
  }

  schedule(entry) {
    this.pending.add(entry);
    if (this.renderTimer) return;
    this.renderTimer = setTimeout(() => {
      this.renderTimer = null;
      for (const pending of this.pending) this.render(pending);
      this.pending.clear();
    }, RENDER_INTERVAL_MS);
  }

  // Streamed answer text (model_delta).
  appendDelta(runId, round, text) {
    const entry = this.round(runId, round);
    if (entry.bubble && entry.bubble.dataset.state === 'plan') return;
    this.bubble(entry, 'streaming');
    entry.text += text;
    this.schedule(entry);
  }

  // A finished model call (model_reply): text with tool calls is an intermediate step; an empty
  // intermediate bubble is removed.
  settleReply(runId, round, text, hasToolCalls) {
    const entry = this.round(runId, round);
    if (entry.bubble && entry.bubble.dataset.state === 'plan') return;
    const value = typeof text === 'string' ? text : entry.text;
    if (!value.trim()) {
      if (entry.bubble) entry.bubble.remove();
      entry.bubble = null;
      entry.text = '';
      return;
    }
    entry.text = value;
    this.bubble(entry, hasToolCalls ? 'intermediate' : 'reply');
    this.pending.delete(entry);
    this.render(entry);
  }

  // The round's reply was a plan: its raw JSON is replaced by a short note (the plan board shows it).
  markPlan(runId, round, steps) {
    const entry = this.round(runId, round);
    this.bubble(entry, 'plan');
    this.pending.delete(entry);
    entry.text = '';
    clear(entry.body).append(el('p', {class: 'plan-note'}, `Plan with ${steps} step${steps === 1 ? '' : 's'} (see the plan board).`));
  }

  // The run's answer (run_finished): fills the round's reply bubble, or adds one after the tools.
  finalAnswer(runId, round, answer) {
    const entry = this.round(runId, round);
    let bubble = entry.bubble;
    if (!bubble || bubble.dataset.state === 'plan' || bubble.dataset.state === 'intermediate') {
      const body = el('div', {class: 'msg-body markdown'});
      bubble = el('article', {class: 'msg assistant', dataset: {testid: 'msg-assistant', state: 'final'}},
        el('header', {class: 'msg-label'}, 'assistant'), body);
      entry.section.append(bubble);
      body.append(renderMarkdown(answer || ''));
    } else {
      entry.text = answer || entry.text;
      this.pending.delete(entry);
      this.bubble(entry, 'final');
      this.render(entry);
    }
    bubble.setAttribute('aria-busy', 'false');
    return bubble;
  }

  // The run ended without an answer: text still streaming stays as it was, marked interrupted.
  interruptRun(runId) {
    for (const [key, entry] of this.rounds) {
      if (!key.startsWith(`${runId}:`) || !entry.bubble || entry.bubble.dataset.state !== 'streaming') continue;
      this.pending.delete(entry);
      this.render(entry);
      this.bubble(entry, 'interrupted');
    }
  }

  // An assistant message from the stored conversation (no round known).
  addHistoryAnswer(text) {
    const node = el('article', {class: 'msg assistant', dataset: {testid: 'msg-assistant', state: 'history'}},
      el('header', {class: 'msg-label'}, 'assistant'),
      el('div', {class: 'msg-body markdown'}, renderMarkdown(text || '')));
    this.root.append(node);
    return node;
  }

  // A container for history tool cards (stored conversation), appended at the end of the log.
  addHistoryTools() {
    const node = el('div', {class: 'round-tools history'});
    this.root.append(node);
    return node;
  }
}
