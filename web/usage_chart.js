// Token usage: a stacked bar (SVG) of what the next model request takes by category (system,
// tools, user, assistant, tool results; from `context` events) with a legend, and a gauge of the
// total against the context window that turns "warning" at 70% and "danger" at 90%.
//
//   const usage = new UsageChart(document.querySelector('[data-testid=usage-panel]'));
//   usage.update({tokens: {system: 1182, tools: 3433, user: 8, assistant: 0, tool_results: 0,
//                          total: 4623}, context_window: 32768});
//
// One instance per panel element.
import {clear, el, formatCount, svg} from './dom.js';

export const CATEGORIES = [
  ['system', 'system'],
  ['tools', 'tools'],
  ['user', 'user'],
  ['assistant', 'assistant'],
  ['tool_results', 'tool results'],
];

export const WARNING_RATIO = 0.7;
export const DANGER_RATIO = 0.9;

// 'ok' below 70% of the window, 'warning' from 70%, 'danger' from 90%; 'unknown' without a window.
export function gaugeLevel(total, contextWindow) {
  if (!(contextWindow > 0)) return 'unknown';
  const ratio = total / contextWindow;
  if (ratio >= DANGER_RATIO) return 'danger';
  if (ratio >= WARNING_RATIO) return 'warning';
  return 'ok';
}

const WIDTH = 300;
const HEIGHT = 18;

export class UsageChart {
  constructor(root) {
    this.root = root;
    clear(root);
    this.bar = svg('svg', {
      class: 'usage-bar', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: 'none',
      role: 'img', 'aria-label': 'tokens by category', 'data-testid': 'usage-bar',
    });
    this.legend = el('ul', {class: 'usage-legend', dataset: {testid: 'usage-legend'}});
    this.gaugeFill = el('div', {class: 'gauge-fill'});
    this.gaugeLabel = el('span', {class: 'gauge-label', dataset: {testid: 'context-gauge-label'}}, 'no request yet');
    this.gauge = el('div', {
      class: 'gauge', role: 'meter', 'aria-label': 'context window used', 'aria-valuemin': '0',
      dataset: {testid: 'context-gauge', level: 'unknown'},
    }, el('div', {class: 'gauge-track'}, this.gaugeFill), this.gaugeLabel);
    root.append(el('figure', {class: 'usage-chart', dataset: {testid: 'usage-chart'}},
      this.bar, this.legend), this.gauge);
  }

  clear() {
    clear(this.bar);
    clear(this.legend);
    this.gauge.dataset.level = 'unknown';
    this.gaugeLabel.textContent = 'no request yet';
    this.gaugeFill.style.width = '0%';
  }

  update(event) {
    const tokens = event.tokens || {};
    const total = typeof tokens.total === 'number' ? tokens.total :
      CATEGORIES.reduce((sum, [key]) => sum + (tokens[key] || 0), 0);
    clear(this.bar);
    clear(this.legend);
    let x = 0;
    for (const [key, label] of CATEGORIES) {
      const value = Math.max(0, tokens[key] || 0);
      const width = total > 0 ? (value / total) * WIDTH : 0;
      if (width > 0) {
        this.bar.append(svg('rect', {class: `seg ${key}`, x: x.toFixed(2), y: 0, width: width.toFixed(2), height: HEIGHT},
          svg('title', {}, `${label}: ${formatCount(value)} tokens`)));
      }
      x += width;
      this.legend.append(el('li', {class: `legend ${key}`, dataset: {testid: `usage-${key}`}},
        el('span', {class: 'swatch', 'aria-hidden': 'true'}), `${label}: ${formatCount(value)}`));
    }
    const contextWindow = event.context_window || 0;
    const level = gaugeLevel(total, contextWindow);
    this.gauge.dataset.level = level;
    const percent = contextWindow > 0 ? Math.round((total / contextWindow) * 100) : 0;
    this.gaugeFill.style.width = `${Math.min(100, percent)}%`;
    this.gauge.setAttribute('aria-valuemax', String(contextWindow || total || 1));
    this.gauge.setAttribute('aria-valuenow', String(total));
    const text = contextWindow > 0 ?
      `${formatCount(total)} / ${formatCount(contextWindow)} tokens (${percent}%)` :
      `${formatCount(total)} tokens (window unknown)`;
    this.gauge.setAttribute('aria-valuetext', text);
    this.gaugeLabel.textContent = level === 'danger' ? `${text}: nearly full` :
      level === 'warning' ? `${text}: filling up` : text;
  }
}
