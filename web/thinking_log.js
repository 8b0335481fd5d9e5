// The thinking log: a timeline of what the run did besides talking - status changes, guards,
// retries, streamed reasoning, compaction, approval decisions, suspensions and steering.
// Reasoning deltas of one round are gathered into one entry.
//
//   const log = new ThinkingLog(document.querySelector('[data-testid=thinking-log]'));
//   log.add('guard', 'round 2', 'semantic_repeat: the same call was already answered');
//
// Text only (textContent). One instance per list element; keeps at most MAX_ENTRIES entries.
import {clear, el, formatDuration} from './dom.js';

const MAX_ENTRIES = 500;

export class ThinkingLog {
  constructor(root) {
    this.root = root;
    this.reasoning = new Map();  // `${runId}:${round}` -> text node of the entry
  }

  clear() {
    clear(this.root);
    this.reasoning.clear();
  }

  // kind: status | guard | retry | reasoning | compaction | approval | question | notice | steer | run
  add(kind, where, text, tMs) {
    const entry = el('li', {class: `log-entry ${kind}`, dataset: {testid: 'log-entry', kind}},
      el('span', {class: 'log-kind'}, kind),
      where ? el('span', {class: 'log-where'}, where) : null,
      typeof tMs === 'number' ? el('span', {class: 'log-time'}, `+${formatDuration(tMs)}`) : null,
      el('span', {class: 'log-text'}, text));
    this.root.append(entry);
    while (this.root.children.length > MAX_ENTRIES) this.root.firstChild.remove();
    this.root.scrollTop = this.root.scrollHeight;
    return entry;
  }

  // reasoning_delta: appended to the round's reasoning entry.
  addReasoning(runId, round, text) {
    const key = `${runId}:${round}`;
    let node = this.reasoning.get(key);
    if (!node || !node.isConnected) {
      const entry = this.add('reasoning', `round ${round}`, '');
      node = entry.querySelector('.log-text');
      this.reasoning.set(key, node);
    }
    node.textContent += text;
  }
}
