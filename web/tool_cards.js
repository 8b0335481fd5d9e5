// Tool cards: one collapsible card per tool call, grouped per round, showing the tool, a round
// badge, its status (running, ok, error, timeout, denied, blocked, cancelled) and duration, and -
// when expanded - the arguments and the result as pretty-printed JSON. A tool's output is ALWAYS
// shown as text (textContent), never parsed as HTML.
//
//   const cards = new ToolCards();
//   cards.start(slot, {id: 'c1', name: 'shell', arguments: {command: 'ls'}, round: 1});
//   cards.finish({id: 'c1', status: 'ok', content: 'a.txt', duration_ms: 12});
//
// One instance per page; it remembers cards by call id until clear().
import {el, formatDuration, prettyJson, uniqueId} from './dom.js';

// Statuses that open their card by themselves, so a failure is seen without a click.
const FAILED = new Set(['error', 'timeout', 'denied', 'blocked', 'cancelled']);

export class ToolCards {
  constructor() {
    this.cards = new Map();  // call id -> {card, status, duration, args, result}
  }

  clear() {
    this.cards.clear();
  }

  has(callId) {
    return this.cards.has(callId);
  }

  // The group header of a round's slot, added before its first card.
  ensureGroup(slot, round) {
    if (!slot.querySelector(':scope > .tool-group-label') && round !== undefined && round !== null) {
      slot.prepend(el('h3', {class: 'tool-group-label'}, el('span', {class: 'badge round-badge'}, `round ${round}`), ' tools'));
    }
  }

  // A card for a call that starts (tool_call), or for one that never ran (denied).
  start(slot, call) {
    const existing = this.cards.get(call.id);
    if (existing) {
      // The same call starting again (a run resumed after a pause): it is running once more.
      existing.card.dataset.status = 'running';
      existing.status.textContent = 'running';
      existing.duration.textContent = '';
      return existing.card;
    }
    this.ensureGroup(slot, call.round);
    const bodyId = uniqueId('tool-body');
    const status = el('span', {class: 'tool-status', dataset: {testid: 'tool-status'}}, 'running');
    const duration = el('span', {class: 'tool-duration', dataset: {testid: 'tool-duration'}});
    const toggle = el('button', {
      type: 'button', class: 'tool-toggle', 'aria-expanded': 'false', 'aria-controls': bodyId,
      dataset: {testid: 'tool-toggle'},
    },
    el('span', {class: 'chevron', 'aria-hidden': 'true'}),
    el('span', {class: 'tool-name', dataset: {testid: 'tool-name'}}, call.name || 'tool'),
    call.round !== undefined ? el('span', {class: 'badge round-badge'}, `R${call.round}`) : null,
    status, duration);
    const args = el('pre', {class: 'tool-args', dataset: {testid: 'tool-args'}}, prettyJson(call.arguments ?? {}));
    const result = el('pre', {class: 'tool-result', dataset: {testid: 'tool-result'}});
    const note = el('p', {class: 'tool-note', dataset: {testid: 'tool-note'}, hidden: true});
    const body = el('div', {class: 'tool-body', id: bodyId, hidden: true},
      el('h4', {}, 'arguments'), args, el('h4', {}, 'result'), result, note);
    const card = el('div', {class: 'tool-card', dataset: {testid: 'tool-card', callId: call.id, status: 'running'}},
      toggle, body);
    toggle.addEventListener('click', () => this.setExpanded(card, toggle.getAttribute('aria-expanded') !== 'true'));
    slot.append(card);
    this.cards.set(call.id, {card, status, duration, result, note, body, toggle});
    return card;
  }

  setExpanded(card, expanded) {
    const toggle = card.querySelector('.tool-toggle');
    const body = card.querySelector('.tool-body');
    toggle.setAttribute('aria-expanded', expanded ? 'true' : 'false');
    body.hidden = !expanded;
  }

  // tool_result: status, text content, duration, cache and cut notes.
  finish(result) {
    const entry = this.cards.get(result.id);
    if (!entry) return null;
    const status = result.status || 'ok';
    entry.card.dataset.status = status;
    entry.status.textContent = status;
    entry.duration.textContent = result.cached ? 'cached' : formatDuration(result.duration_ms);
    entry.result.textContent = prettyJson(typeof result.content === 'string' ? result.content : String(result.content ?? ''));
    const notes = [];
    if (result.content_cut_at !== undefined) notes.push(`output cut at ${result.content_cut_at} bytes in the event`);
    if (result.note) notes.push(result.note);
    if (notes.length) {
      entry.note.textContent = notes.join('; ');
      entry.note.hidden = false;
    }
    if (FAILED.has(status)) this.setExpanded(entry.card, true);
    return entry.card;
  }

  // A call refused before it ran (approval_decided with verdict deny).
  denied(slot, call, reason) {
    this.start(slot, call);
    return this.finish({id: call.id, status: 'denied', content: reason || 'denied'});
  }

  // A guard that names a call (postcondition_failed, repeated_failure...) adds a note to its card.
  annotate(callId, text) {
    const entry = this.cards.get(callId);
    if (!entry) return;
    entry.note.textContent = entry.note.hidden ? text : `${entry.note.textContent}; ${text}`;
    entry.note.hidden = false;
  }
}
