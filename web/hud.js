// The progress HUD: the run's state, "round k / N" (N: the run's max rounds), the tool that is
// running and a progress bar of rounds used. Fed by the session's event router.
//
//   const hud = new ProgressHud(document.querySelector('[data-testid=hud]'));
//   hud.set({state: 'calling_model', round: 2, maxRounds: 8});
//   hud.set({tool: 'shell'});
//
// One instance per HUD element; set() merges the fields it is given.
import {clear, el} from './dom.js';

const STATE_LABELS = {
  idle: 'idle',
  queued: 'queued',
  planning: 'planning',
  calling_model: 'calling the model',
  running_tools: 'running tools',
  waiting_approval: 'waiting for approval',
  waiting_answer: 'waiting for your answer',
  compacting: 'compacting the context',
  running: 'running',
  finished: 'finished',
  failed: 'failed',
  aborted: 'aborted',
};

export class ProgressHud {
  constructor(root) {
    this.root = root;
    this.value = {state: 'idle', round: 0, maxRounds: 0, tool: ''};
    clear(root);
    this.stateNode = el('span', {class: 'hud-state', dataset: {testid: 'hud-state'}});
    this.roundNode = el('span', {class: 'hud-round', dataset: {testid: 'hud-round'}});
    this.toolNode = el('span', {class: 'hud-tool', dataset: {testid: 'hud-tool'}});
    this.bar = el('div', {class: 'hud-bar-fill'});
    this.progress = el('div', {
      class: 'hud-bar', role: 'progressbar', 'aria-label': 'rounds used', 'aria-valuemin': '0',
      dataset: {testid: 'hud-progress'},
    }, this.bar);
    root.append(this.stateNode, this.roundNode, this.toolNode, this.progress);
    this.render();
  }

  set(fields) {
    Object.assign(this.value, fields);
    this.render();
  }

  reset() {
    this.value = {state: 'idle', round: 0, maxRounds: this.value.maxRounds, tool: ''};
    this.render();
  }

  render() {
    const {state, round, maxRounds, tool} = this.value;
    this.root.dataset.state = state;
    this.stateNode.textContent = STATE_LABELS[state] || state;
    this.roundNode.textContent = maxRounds ? `round ${round} / ${maxRounds}` : `round ${round}`;
    this.toolNode.textContent = tool ? `tool: ${tool}` : '';
    this.toolNode.hidden = !tool;
    const max = Math.max(1, maxRounds || round || 1);
    const done = state === 'finished' ? max : Math.min(round, max);
    this.progress.setAttribute('aria-valuemax', String(max));
    this.progress.setAttribute('aria-valuenow', String(done));
    this.progress.setAttribute('aria-valuetext', this.roundNode.textContent);
    // The fill's width is set through the CSSOM (not a style attribute), which a strict CSP allows.
    this.bar.style.width = `${Math.round((done / max) * 100)}%`;
  }
}
