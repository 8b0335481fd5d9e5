// Approval cards: when a run asks a person about a tool call (`approval_requested`), an inline card
// shows the call (tool, risk, reason, arguments) with Allow / Deny / Always allow buttons that
// POST /api/approvals/{approval_id}. The card settles on the answer, or on `approval_decided`
// from any client.
//
//   const approvals = new Approvals(api, (message) => banner.show(message));
//   approvals.request(slot, event);   // approval_requested
//   approvals.decided(event);         // approval_decided
//
// One instance per page; remembers cards by call id until clear().
import {el, prettyJson} from './dom.js';

const VERDICT_TEXT = {allow: 'allowed', allow_always: 'always allowed', always: 'always allowed', deny: 'denied'};

export class Approvals {
  constructor(api, onError) {
    this.api = api;
    this.onError = onError;
    this.cards = new Map();  // call id -> {card, buttons, status}
  }

  clear() {
    this.cards.clear();
  }

  request(slot, event) {
    const call = event.call || {};
    if (this.cards.has(call.id)) return this.cards.get(call.id).card;
    const status = el('p', {class: 'approval-status', dataset: {testid: 'approval-status'}, role: 'status'},
      'waiting for your decision');
    const buttons = [
      ['allow', 'Allow', 'approval-allow'],
      ['deny', 'Deny', 'approval-deny'],
      ['always', 'Always allow', 'approval-always'],
    ].map(([decision, label, testid]) => el('button', {
      type: 'button', class: `btn ${decision}`, dataset: {testid, decision},
      on: {click: () => this.decide(call.id, event.approval_id, decision)},
    }, label));
    const card = el('div', {
      class: 'approval-card', role: 'group', 'aria-label': `approval for ${call.name || 'a tool call'}`,
      dataset: {testid: 'approval', approvalId: event.approval_id ?? '', callId: call.id ?? '', state: 'pending'},
    },
    el('p', {class: 'approval-title'}, 'Approve ', el('strong', {}, call.name || 'tool'), '?',
      event.risk ? el('span', {class: `badge risk ${event.risk}`}, `${event.risk} risk`) : null),
    event.reason ? el('p', {class: 'approval-reason'}, event.reason) : null,
    el('pre', {class: 'approval-args', dataset: {testid: 'approval-args'}}, prettyJson(call.arguments ?? {})),
    el('div', {class: 'approval-buttons'}, buttons), status);
    if (event.approval_id === undefined || event.approval_id === null) {
      // Only the server's event carries an id to answer; without one the card is informational.
      for (const button of buttons) button.disabled = true;
    }
    slot.append(card);
    this.cards.set(call.id, {card, buttons, status});
    return card;
  }

  settle(callId, verdict, reason) {
    const entry = this.cards.get(callId);
    if (!entry) return;
    entry.card.dataset.state = verdict;
    for (const button of entry.buttons) button.disabled = true;
    entry.status.textContent = (VERDICT_TEXT[verdict] || verdict) + (reason ? ` (${reason})` : '');
  }

  async decide(callId, approvalId, decision) {
    const entry = this.cards.get(callId);
    if (!entry || entry.card.dataset.state !== 'pending') return;
    for (const button of entry.buttons) button.disabled = true;
    entry.status.textContent = 'sending…';
    try {
      await this.api.decideApproval(approvalId, decision);
      if (entry.card.dataset.state === 'pending') this.settle(callId, decision === 'always' ? 'allow_always' : decision);
    } catch (error) {
      if (error.code === 'already_decided' || error.code === 'not_found') {
        if (entry.card.dataset.state === 'pending') this.settle(callId, 'decided', error.message);
        return;
      }
      for (const button of entry.buttons) button.disabled = false;
      entry.status.textContent = `could not send: ${error.message}`;
      this.onError(`Approval not sent: ${error.message}`);
    }
  }

  // approval_decided: the verdict, from this page or anywhere else.
  decided(event) {
    this.settle(event.call_id, event.verdict, event.reason);
  }

  // The call named in an approval card, for a denied call's tool card.
  callOf(callId) {
    const entry = this.cards.get(callId);
    if (!entry) return null;
    return {name: entry.card.querySelector('.approval-title strong').textContent};
  }
}
