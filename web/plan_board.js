// The plan board: when the model answers with a plan (README "Plans"), its steps move through
// columns Planned -> Executing -> Done / Failed / Skipped as `plan_step` events arrive. The board
// shows the newest plan; a plan of another run or round replaces it.
//
//   const board = new PlanBoard(document.querySelector('[data-testid=plan-board]'));
//   board.update(planStepEvent);
//
// One instance per board element.
import {clear, el, prettyJson} from './dom.js';

export const PLAN_COLUMNS = [
  ['planned', 'Planned'],
  ['executing', 'Executing'],
  ['done', 'Done'],
  ['failed', 'Failed'],
  ['skipped', 'Skipped'],
];

export class PlanBoard {
  constructor(root) {
    this.root = root;
    this.key = '';
    this.steps = new Map();  // index -> card element
    this.build();
  }

  build() {
    clear(this.root);
    this.caption = el('p', {class: 'plan-caption', dataset: {testid: 'plan-caption'}}, 'No plan yet.');
    this.columns = new Map();
    const grid = el('div', {class: 'plan-columns'});
    for (const [state, title] of PLAN_COLUMNS) {
      const list = el('ol', {class: 'plan-list', 'aria-label': title});
      const count = el('span', {class: 'plan-count'}, '0');
      this.columns.set(state, {list, count});
      grid.append(el('div', {class: `plan-col ${state}`, dataset: {testid: `plan-col-${state}`}},
        el('h3', {}, title, ' ', count), list));
    }
    this.root.append(this.caption, grid);
  }

  clear() {
    this.key = '';
    this.steps.clear();
    this.build();
  }

  updateCounts() {
    for (const {list, count} of this.columns.values()) count.textContent = String(list.children.length);
  }

  update(event) {
    const key = `${event.run_id}:${event.round}`;
    if (key !== this.key) {
      this.clear();
      this.key = key;
      this.caption.textContent = `Plan of round ${event.round}: ${event.steps} step${event.steps === 1 ? '' : 's'}`;
    }
    const state = PLAN_COLUMNS.some(([s]) => s === event.state) ? event.state : 'planned';
    const column = this.columns.get(state);
    let card = this.steps.get(event.index);
    if (!card) {
      card = el('li', {class: 'plan-step', dataset: {testid: 'plan-step', index: event.index}});
      this.steps.set(event.index, card);
    }
    card.dataset.state = state;
    clear(card);
    card.append(el('div', {class: 'plan-step-head'},
      el('span', {class: 'badge'}, `#${Number(event.index) + 1}`), ' ',
      el('strong', {class: 'plan-tool'}, event.tool || '?'),
      event.save_as ? el('span', {class: 'plan-alias'}, ` → ${event.save_as}`) : null));
    if (event.why) card.append(el('p', {class: 'plan-why'}, event.why));
    if (event.detail) card.append(el('p', {class: 'plan-detail'}, event.detail));
    if (event.arguments !== undefined && state === 'executing') {
      card.append(el('pre', {class: 'plan-args'}, prettyJson(event.arguments)));
    }
    // Keep the steps of a column in plan order.
    const after = Array.from(column.list.children).find((c) => Number(c.dataset.index) > Number(event.index));
    column.list.insertBefore(card, after || null);
    this.updateCounts();
  }
}
