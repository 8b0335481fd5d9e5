// The operator console: what waits on a person outside any conversation, in one panel. Skill
// proposals (GET /api/skills) are approved or rejected here (POST /api/skills/proposals/{id}), and
// the workspace autopilot (GET /api/autopilot) shows its health - running, cycles, counters, the
// budget guard, each source's errors, observations by state and the newest ones - so a stalled
// observation or a broken source is seen without a terminal. The panel opens from the header's
// Operator button, loads at once and every 3 s while open, and stops polling when closed.
// Everything the server sends is set as text (el() / textContent), never parsed as HTML.
//
//   const operator = new OperatorConsole({panel, toggle}, api);
//   operator.setOpen(true);   // loads now, then every POLL_MS until setOpen(false)
//
// One instance per panel element; a decision in flight disables its buttons, so a proposal is
// decided (and carried out) once.
import {clear, el, formatCount, formatDuration, prettyJson} from './dom.js';

export const POLL_MS = 3000;
const ARGS_SHOWN = 120;     // characters of compact JSON shown before the rest is folded away
const OUTCOMES_KEPT = 10;   // decisions listed under "Decided here"
const STATES = ['pending', 'processing', 'done', 'dismissed', 'stalled'];
const COUNTERS = [
  ['observations_seen', 'seen'], ['deduplicated', 'deduplicated'], ['processed', 'processed'],
  ['failed', 'failed'], ['proposals', 'proposals'],
];
const OUTCOME_LABELS = {already_decided: 'already decided', not_found: 'no longer there'};

// 1700000000000 -> "2023-11-14 22:13:20" (UTC, like the session list); '' for 0 or junk.
function formatTime(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return '';
  const when = new Date(ms);
  return Number.isNaN(when.getTime()) ? '' : when.toISOString().replace('T', ' ').slice(0, 19);
}

function text(value) {
  return value === undefined || value === null ? '' : String(value);
}

function compactJson(value) {
  try {
    return JSON.stringify(value ?? {}) ?? '';
  } catch {
    return String(value);
  }
}

// Arguments as one line of JSON; a long line is cut, with the whole on hover and, expanded, pretty.
function argumentsView(args) {
  const compact = compactJson(args);
  if (compact.length <= ARGS_SHOWN) {
    return el('code', {class: 'proposal-args', dataset: {testid: 'proposal-args'}}, compact);
  }
  return el('details', {class: 'proposal-args', dataset: {testid: 'proposal-args'}},
    el('summary', {title: compact, dataset: {testid: 'proposal-args-summary'}}, `${compact.slice(0, ARGS_SHOWN)}…`),
    el('pre', {dataset: {testid: 'proposal-args-full'}}, prettyJson(args)));
}

// Newest first: by created_ms, then by id.
function newestFirst(observations) {
  const key = (o) => [Number(o.created_ms) || 0, Number(o.id) || 0];
  return observations.slice().sort((a, b) => {
    const [ta, ia] = key(a);
    const [tb, ib] = key(b);
    return tb - ta || ib - ia;
  });
}

export class OperatorConsole {
  constructor({panel, toggle}, api, options = {}) {
    this.panel = panel;
    this.toggle = toggle;
    this.api = api;
    this.pollMs = options.pollMs || POLL_MS;
    this.cards = new Map();     // proposal id -> {card, buttons, status}
    this.deciding = new Set();  // proposal ids with a decision in flight
    this.decided = new Set();   // proposal ids decided from here: never listed again
    this.timer = null;
    this.generation = 0;        // bumped by open and close: a stale poll does not reschedule
    this.loading = 0;           // the latest refresh; older answers are dropped
    this.build();
    if (toggle) toggle.addEventListener('click', () => this.setOpen(!this.isOpen()));
    panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.setOpen(false);
      }
    });
  }

  build() {
    clear(this.panel);
    this.errorLine = el('p', {class: 'operator-error', dataset: {testid: 'operator-error'}, role: 'alert', hidden: true});
    this.proposalCount = el('span', {class: 'badge', dataset: {testid: 'proposal-count'}}, '0');
    this.proposalList = el('ul', {class: 'proposal-list', dataset: {testid: 'proposal-list'}});
    this.proposalsEmpty = el('p', {class: 'operator-hint', dataset: {testid: 'proposals-empty'}}, 'No proposals waiting.');
    this.outcomeList = el('ul', {class: 'proposal-outcomes', dataset: {testid: 'proposal-outcomes'}, 'aria-live': 'polite'});
    this.outcomesHead = el('h4', {hidden: true}, 'Decided here');
    this.autopilotRoot = el('div', {class: 'autopilot', dataset: {testid: 'autopilot'}},
      el('p', {class: 'operator-hint'}, 'loading…'));
    this.panel.append(
      el('div', {class: 'operator-head'},
        el('h2', {}, 'Operator console'),
        el('button', {type: 'button', class: 'btn small', dataset: {testid: 'operator-refresh'},
          on: {click: () => this.refresh()}}, 'Refresh'),
        el('button', {type: 'button', class: 'btn small', dataset: {testid: 'operator-close'},
          on: {click: () => this.setOpen(false)}}, 'Close')),
      this.errorLine,
      el('div', {class: 'operator-columns'},
        el('section', {class: 'operator-section', 'aria-label': 'Proposals', dataset: {testid: 'operator-proposals'}},
          el('h3', {}, 'Proposals ', this.proposalCount),
          this.proposalList, this.proposalsEmpty, this.outcomesHead, this.outcomeList),
        el('section', {class: 'operator-section', 'aria-label': 'Autopilot', dataset: {testid: 'operator-autopilot'}},
          el('h3', {}, 'Autopilot'), this.autopilotRoot)));
  }

  isOpen() {
    return !this.panel.hidden;
  }

  setOpen(open) {
    if (open === this.isOpen()) return;
    this.panel.hidden = !open;
    if (this.toggle) this.toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    this.generation += 1;
    clearTimeout(this.timer);
    this.timer = null;
    if (open) {
      this.poll(this.generation);
      this.panel.focus();
    } else if (this.toggle) {
      this.toggle.focus();
    }
  }

  async poll(generation) {
    await this.refresh();
    if (generation !== this.generation || !this.isOpen()) return;
    this.timer = setTimeout(() => this.poll(generation), this.pollMs);
  }

  // Loads both documents; a failed one leaves its section as it was and says why in the error line.
  async refresh() {
    const ticket = ++this.loading;
    const [skills, autopilot] = await Promise.allSettled([this.api.skills(), this.api.autopilot()]);
    if (ticket !== this.loading) return;
    const problems = [];
    if (skills.status === 'fulfilled') {
      this.renderProposals(skills.value && skills.value.proposals);
    } else {
      problems.push(`Could not load the proposals: ${skills.reason && skills.reason.message}`);
    }
    if (autopilot.status === 'fulfilled') {
      this.renderAutopilot(autopilot.value && typeof autopilot.value === 'object' ? autopilot.value : {});
    } else {
      problems.push(`Could not load the autopilot status: ${autopilot.reason && autopilot.reason.message}`);
    }
    const message = problems.join(' ');
    if (this.errorLine.textContent !== message) this.errorLine.textContent = message;
    this.errorLine.hidden = !message;
  }

  // Keyed by id, so cards that stay keep their focus and expanded arguments across polls.
  renderProposals(list) {
    const pending = (Array.isArray(list) ? list : []).filter((p) => p && typeof p.id === 'string' &&
      (p.status === undefined || p.status === 'pending') && !this.decided.has(p.id));
    const wanted = new Set(pending.map((p) => p.id));
    for (const [id, entry] of this.cards) {
      if (wanted.has(id) || this.deciding.has(id)) continue;
      entry.card.remove();
      this.cards.delete(id);
    }
    for (const proposal of pending) {
      if (this.cards.has(proposal.id)) continue;
      const entry = this.proposalCard(proposal);
      this.cards.set(proposal.id, entry);
      this.proposalList.append(entry.card);
    }
    this.updateProposalCount();
  }

  updateProposalCount() {
    this.proposalCount.textContent = String(this.cards.size);
    this.proposalsEmpty.hidden = this.cards.size > 0;
  }

  proposalCard(proposal) {
    const skill = text(proposal.skill) || 'skill';
    const status = el('p', {class: 'proposal-status', dataset: {testid: 'proposal-status'}, role: 'status'});
    const buttons = [['approve', 'Approve', 'primary'], ['reject', 'Reject', 'danger']].map(([decision, label, kind]) =>
      el('button', {type: 'button', class: `btn small ${kind}`, dataset: {testid: `proposal-${decision}`, decision},
        on: {click: () => this.decide(proposal, decision)}}, label));
    const when = formatTime(proposal.created_ms);
    const card = el('li', {class: 'proposal-card', dataset: {testid: 'proposal', proposalId: proposal.id, state: 'pending'}},
      el('div', {role: 'group', 'aria-label': `proposal of ${skill}`},
        el('p', {class: 'proposal-title'},
          el('strong', {dataset: {testid: 'proposal-skill'}}, skill),
          el('span', {class: 'badge', dataset: {testid: 'proposal-tool'}}, proposal.tool ? `tool: ${text(proposal.tool)}` : 'no tool'),
          when ? el('span', {class: 'proposal-time'}, when) : null),
        el('p', {class: 'proposal-summary', dataset: {testid: 'proposal-summary'}}, text(proposal.summary)),
        argumentsView(proposal.arguments),
        el('div', {class: 'approval-buttons'}, buttons), status));
    return {card, buttons, status};
  }

  async decide(proposal, decision) {
    const entry = this.cards.get(proposal.id);
    if (!entry || this.deciding.has(proposal.id)) return;
    // Before any await: a second click finds the buttons disabled and the id taken.
    this.deciding.add(proposal.id);
    for (const button of entry.buttons) button.disabled = true;
    entry.card.dataset.state = 'deciding';
    entry.status.textContent = decision === 'approve' ? 'approving…' : 'rejecting…';
    let done;
    try {
      done = await this.api.decideProposal(proposal.id, decision);
    } catch (error) {
      if (error.code === 'already_decided' || error.code === 'not_found') {
        // Someone else decided it (or it is gone): say so and show the list as it is now.
        this.settle(proposal, {status: error.code, result: error.message});
        this.refresh();
        return;
      }
      // No answer or a server error: the decision can be sent again (the server decides once).
      this.deciding.delete(proposal.id);
      for (const button of entry.buttons) button.disabled = false;
      entry.card.dataset.state = 'pending';
      entry.status.textContent = `could not send: ${error.message}`;
      return;
    }
    const fallback = {status: decision === 'approve' ? 'executed' : 'rejected', result: ''};
    this.settle(proposal, done && typeof done === 'object' ? done : fallback);
  }

  // Moves a decided proposal from the pending list to "Decided here" with its status and result.
  settle(proposal, outcome) {
    this.deciding.delete(proposal.id);
    this.decided.add(proposal.id);
    const entry = this.cards.get(proposal.id);
    if (entry) entry.card.remove();
    this.cards.delete(proposal.id);
    this.updateProposalCount();
    const status = text(outcome.status) || 'decided';
    const result = text(outcome.result);
    this.outcomeList.prepend(el('li', {
      class: 'proposal-outcome', dataset: {testid: 'proposal-outcome', proposalId: proposal.id, status},
    },
    el('p', {class: 'proposal-title'},
      el('strong', {}, text(proposal.skill) || 'skill'),
      el('span', {class: 'badge outcome-status', dataset: {testid: 'proposal-outcome-status'}}, OUTCOME_LABELS[status] || status),
      el('span', {class: 'proposal-summary'}, text(proposal.summary))),
    result ? el('pre', {class: 'proposal-result', dataset: {testid: 'proposal-outcome-result'}}, result) : null));
    while (this.outcomeList.children.length > OUTCOMES_KEPT) this.outcomeList.lastElementChild.remove();
    this.outcomesHead.hidden = false;
  }

  renderAutopilot(doc) {
    const root = this.autopilotRoot;
    clear(root);
    if (doc.enabled === false) {
      root.append(el('p', {class: 'operator-hint', dataset: {testid: 'autopilot-disabled'}},
        'No autopilot is configured for this server. To enable it, add an ', el('code', {}, 'autopilot:'),
        ' section (sources and triggers) to keel.yaml, as the README\'s Autopilot section shows, and restart ',
        el('code', {}, 'keel serve'), '.'));
      return;
    }
    const status = doc.status && typeof doc.status === 'object' ? doc.status : null;
    if (status) {
      root.append(this.statusView(status));
    } else {
      root.append(el('p', {class: 'operator-hint', dataset: {testid: 'autopilot-no-status'}},
        'The autopilot has not reported a status yet.'));
    }
    root.append(this.countsView(doc.counts && typeof doc.counts === 'object' ? doc.counts : {}),
      this.observationsView(Array.isArray(doc.observations) ? doc.observations : []));
  }

  statusView(status) {
    const running = status.running === true;
    const facts = [`${formatCount(status.cycles)} cycles`];
    const duration = formatDuration(status.last_cycle_duration_ms);
    if (duration) facts.push(`last cycle ${duration}`);
    const last = formatTime(status.last_cycle_ms);
    if (last) facts.push(`at ${last}`);
    const guard = text(status.guard);
    const sources = Array.isArray(status.sources) ? status.sources : [];
    return el('div', {class: 'autopilot-status'},
      el('p', {class: 'autopilot-state', dataset: {testid: 'autopilot-state', running: running ? 'true' : 'false'}},
        el('span', {class: `badge run-state ${running ? 'running' : 'stopped'}`}, running ? 'running' : 'not running'),
        ` ${facts.join(' · ')}`),
      guard ? el('p', {class: 'autopilot-guard', dataset: {testid: 'autopilot-guard'}},
        el('strong', {}, 'Budget guard: '), guard) : null,
      el('dl', {class: 'autopilot-counters'}, COUNTERS.map(([key, label]) =>
        el('div', {dataset: {testid: 'autopilot-counter', name: key}},
          el('dt', {}, label), el('dd', {}, formatCount(status[key]))))),
      el('h4', {}, 'Sources'),
      sources.length ? el('ul', {class: 'autopilot-sources'}, sources.map((s) => this.sourceView(s))) :
        el('p', {class: 'operator-hint'}, 'No sources.'));
  }

  sourceView(source) {
    const ok = source.ok !== false;
    const polled = formatTime(source.last_poll_ms);
    return el('li', {class: 'autopilot-source', dataset: {testid: 'autopilot-source', ok: ok ? 'true' : 'false'}},
      el('strong', {}, text(source.name)),
      source.kind ? el('span', {class: 'badge'}, text(source.kind)) : null,
      ok ? el('span', {class: 'source-ok'}, 'ok') :
        el('span', {class: 'source-error', dataset: {testid: 'autopilot-source-error'}}, text(source.error) || 'error'),
      polled ? el('span', {class: 'proposal-time'}, `polled ${polled}`) : null);
  }

  countsView(counts) {
    const states = STATES.concat(Object.keys(counts).filter((s) => !STATES.includes(s)));
    return el('ul', {class: 'autopilot-counts', 'aria-label': 'observations by state'}, states.map((state) =>
      el('li', {class: 'state-count', dataset: {testid: 'autopilot-count', state}},
        el('span', {class: `badge state ${state}`}, state), ` ${formatCount(counts[state])}`)));
  }

  observationsView(observations) {
    const head = el('h4', {}, 'Newest observations');
    const listed = observations.filter((o) => o && typeof o === 'object');
    if (!listed.length) return el('div', {}, head, el('p', {class: 'operator-hint'}, 'No observations yet.'));
    return el('div', {}, head, el('ol', {class: 'observation-list', dataset: {testid: 'autopilot-observations'}},
      newestFirst(listed).map((o) => {
        const state = text(o.state);
        const meta = [`#${text(o.id)}`, text(o.source), text(o.kind)].filter(Boolean);
        const failures = Number(o.failures);
        if (failures > 0) meta.push(`${formatCount(failures)} failure${failures === 1 ? '' : 's'}`);
        const when = formatTime(o.updated_ms) || formatTime(o.created_ms);
        if (when) meta.push(when);
        return el('li', {class: 'observation', dataset: {testid: 'autopilot-observation', state, observationId: text(o.id)}},
          el('p', {class: 'observation-head'},
            el('span', {class: `badge state ${state}`, dataset: {testid: 'observation-state'}}, state || 'unknown'),
            el('span', {class: 'observation-subject', dataset: {testid: 'observation-subject'}}, text(o.subject))),
          el('p', {class: 'observation-meta'}, meta.join(' · ')),
          o.last_error ? el('p', {class: 'observation-error', dataset: {testid: 'observation-error'}}, text(o.last_error)) : null,
          o.result ? el('p', {class: 'observation-result'}, text(o.result)) : null);
      })));
  }
}
